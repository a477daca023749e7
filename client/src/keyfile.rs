//! Key files on disk: created owner-only and never overwritten; refused when others can read them.
//!
//! The text format is [`protocol::keys::Identity::to_key_file`]'s. A player's key signs for the
//! player, so a key file that the group or others may read is refused with an error that says
//! how to fix it (as OpenSSH refuses a private key with open permissions), before its contents
//! are parsed (issue 6, point 10).

use protocol::keys::{Identity, KeyFileError};
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a key file could not be read.
#[derive(Debug, Error)]
pub enum ReadKeyError {
    /// The file could not be opened or read.
    #[error("cannot read key file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The group or others may read or write the file.
    #[error(
        "key file {path} is accessible by others (mode {mode:04o}); a key file must be readable \
         by its owner only: run `chmod 600 {path}`"
    )]
    Permissions {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The file is not a key file.
    #[error("bad key file {path}: {source}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: KeyFileError,
    },
}

/// Why a key file could not be written.
#[derive(Debug, Error)]
pub enum WriteKeyError {
    /// A file already exists at the path: key files are never overwritten.
    #[error("refusing to overwrite existing file {0}")]
    Exists(PathBuf),
    /// The file could not be created or written.
    #[error("cannot write key file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The comment cannot be stored (it spans lines).
    #[error("cannot write key file {path}: {source}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: KeyFileError,
    },
}

/// Reads a key file, refusing one that the group or others may access. Returns the identity and
/// the file's comment.
pub fn read(path: &Path) -> Result<(Identity, String), ReadKeyError> {
    let io = |source| ReadKeyError::Io { path: path.to_owned(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = file.metadata().map_err(io)?.permissions().mode() & 0o7777;
        if mode & 0o077 != 0 {
            return Err(ReadKeyError::Permissions { path: path.to_owned(), mode });
        }
    }
    let text = std::io::read_to_string(file).map_err(io)?;
    Identity::from_key_file(&text)
        .map_err(|source| ReadKeyError::Format { path: path.to_owned(), source })
}

/// Writes `identity` to a new key file at `path`, owner-only (mode 0600 on Unix), synced to disk.
/// Refuses to overwrite an existing file.
pub fn write_new(path: &Path, identity: &Identity, comment: &str) -> Result<(), WriteKeyError> {
    let text = identity
        .to_key_file(comment)
        .map_err(|source| WriteKeyError::Format { path: path.to_owned(), source })?;
    let io = |source| WriteKeyError::Io { path: path.to_owned(), source };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            WriteKeyError::Exists(path.to_owned())
        } else {
            io(e)
        }
    })?;
    file.write_all(text.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fogproof-keyfile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("key")
    }

    #[test]
    fn a_written_key_file_reads_back_and_is_never_overwritten() {
        let path = scratch("roundtrip");
        let identity = Identity::from_seed(&[7; 32]);
        write_new(&path, &identity, "alice").unwrap();
        let (back, comment) = read(&path).unwrap();
        assert_eq!(back.public(), identity.public());
        assert_eq!(comment, "alice");
        let again = write_new(&path, &Identity::from_seed(&[8; 32]), "mallory").unwrap_err();
        assert!(matches!(again, WriteKeyError::Exists(_)), "{again}");
        assert_eq!(read(&path).unwrap().0.public(), identity.public(), "the file is unchanged");
    }

    #[cfg(unix)]
    #[test]
    fn a_key_file_others_can_read_is_refused_with_the_fix() {
        use std::os::unix::fs::PermissionsExt;
        let path = scratch("perms");
        write_new(&path, &Identity::from_seed(&[7; 32]), "").unwrap();
        for mode in [0o644, 0o640, 0o604, 0o660, 0o602] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let e = read(&path).unwrap_err();
            assert!(matches!(e, ReadKeyError::Permissions { mode: m, .. } if m == mode), "{e}");
            assert!(e.to_string().contains("chmod 600"), "{e}");
        }
        for mode in [0o600, 0o400] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            assert!(read(&path).is_ok(), "mode {mode:o} is owner-only");
        }
    }

    #[test]
    fn a_missing_or_malformed_file_names_the_file() {
        let path = scratch("bad");
        let e = read(&path).unwrap_err();
        assert!(matches!(e, ReadKeyError::Io { .. }) && e.to_string().contains("key"), "{e}");
        std::fs::write(&path, "not a key file\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let e = read(&path).unwrap_err();
        assert!(matches!(e, ReadKeyError::Format { .. }), "{e}");
    }
}
