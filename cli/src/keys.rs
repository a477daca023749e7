//! `fogproof keys`: create and inspect identity key files (format in protocol::keys).

use anyhow::{Context, Result};
use clap::Subcommand;
use protocol::keys::Identity;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Identity key files.
#[derive(Subcommand)]
pub enum KeysCommand {
    /// Create a new identity key file (never overwrites an existing file).
    New {
        /// Where to write the key file.
        #[arg(long)]
        out: PathBuf,
        /// A one-line comment stored in the file (e.g. whose key it is).
        #[arg(long, default_value = "")]
        comment: String,
    },
    /// Print a key file's public keys, fingerprint and comment (never the secret).
    Show {
        /// The key file.
        file: PathBuf,
    },
}

/// Runs one `keys` subcommand.
pub fn run(command: KeysCommand, out: &mut impl Write) -> Result<()> {
    match command {
        KeysCommand::New { out: path, comment } => {
            let identity = Identity::generate()?;
            let text = identity.to_key_file(&comment)?;
            write_new(&path, text.as_bytes())?;
            writeln!(out, "wrote {}", path.display())?;
            describe(&identity, &comment, out)?;
        }
        KeysCommand::Show { file } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read key file {}", file.display()))?;
            let (identity, comment) = Identity::from_key_file(&text)
                .with_context(|| format!("bad key file {}", file.display()))?;
            describe(&identity, &comment, out)?;
        }
    }
    Ok(())
}

fn describe(identity: &Identity, comment: &str, out: &mut impl Write) -> Result<()> {
    let public = identity.public();
    writeln!(out, "public-key: {public}")?;
    writeln!(out, "fingerprint: {}", public.fingerprint())?;
    writeln!(out, "comment: {comment}")?;
    Ok(())
}

/// Creates `path` with `bytes`, refusing if it exists; owner-only permissions on Unix.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            anyhow::anyhow!("refusing to overwrite existing file {}", path.display())
        } else {
            anyhow::anyhow!("cannot create key file {}: {e}", path.display())
        }
    })?;
    file.write_all(bytes).with_context(|| format!("cannot write key file {}", path.display()))?;
    file.sync_all().with_context(|| format!("cannot write key file {}", path.display()))?;
    Ok(())
}
