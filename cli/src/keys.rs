//! `fogproof keys`: create and inspect identity key files (format in protocol::keys).

use anyhow::Result;
use clap::Subcommand;
use protocol::keys::Identity;
use std::io::Write;
use std::path::PathBuf;

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
            client::keyfile::write_new(&path, &identity, &comment)?;
            writeln!(out, "wrote {}", path.display())?;
            describe(&identity, &comment, out)?;
        }
        KeysCommand::Show { file } => {
            let (identity, comment) = client::keyfile::read(&file)?;
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
