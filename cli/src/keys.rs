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
    /// Sign a display name with a key file and print the signed statement (JSON, as a server's
    /// `POST /api/account` takes it; `fogproof agent --name` does this by itself).
    Name {
        /// The key file.
        file: PathBuf,
        /// The name: 1 to 32 letters, digits, spaces and - _ . ' (docs/PROTOCOL.md, display
        /// names).
        name: String,
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
        KeysCommand::Name { file, name } => {
            let (identity, _) = client::keyfile::read(&file)?;
            let signed =
                protocol::names::SignedName::sign(&identity, &name, client::net::wall_ms())
                    .map_err(|e| anyhow::anyhow!("{name:?}: {e}"))?;
            writeln!(out, "{}", serde_json::to_string(&signed)?)?;
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
