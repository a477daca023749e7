//! One owner per directory: a server holds an exclusive lock on `fogproof-server.lock` in its
//! data directory (and in its ledger's directory) for as long as it runs, with its process id
//! in the file. A second server on the same directory refuses to start and names the first
//! one's pid: two servers would resume the same matches and write the same log over each
//! other (docs/SERVER.md, durability).
//!
//! The lock is the operating system's (`File::try_lock`: `flock` on Unix, `LockFileEx` on
//! Windows): it goes with the process, so a killed server leaves no stale lock behind (the
//! pid in the file is then only a leftover, overwritten by the next owner).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The lock file's name.
pub const LOCK_FILE: &str = "fogproof-server.lock";

/// Why a directory could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds it.
    #[error(
        "{dir} is in use by another fogproof server (pid {pid}, in {lock}): stop it first, or \
         give this one another directory"
    )]
    Held {
        /// The directory.
        dir: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// What the lock file says of its owner.
        pid: String,
    },
    /// The lock file could not be created or locked.
    #[error("locking {path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A held lock; dropping it releases the directory.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    /// The lock file.
    pub path: PathBuf,
}

/// Locks `dir` (created if missing) for this process.
pub fn lock_dir(dir: &Path) -> Result<DirLock, LockError> {
    let path = dir.join(LOCK_FILE);
    let io = |source| LockError::Io { path: path.clone(), source };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let pid = std::fs::read_to_string(&path)
                .ok()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()))
                .unwrap_or_else(|| "unknown".into());
            return Err(LockError::Held { dir: dir.to_path_buf(), lock: path.clone(), pid });
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    file.set_len(0).map_err(io)?;
    writeln!(file, "{}", std::process::id()).map_err(io)?;
    file.flush().map_err(io)?;
    Ok(DirLock { _file: file, path })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_directory_is_refused_with_the_owners_pid_until_released() {
        let dir = std::env::temp_dir().join(format!("fogproof-dirlock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let first = lock_dir(&dir).expect("the first lock");
        let err = lock_dir(&dir).expect_err("a second lock");
        let text = err.to_string();
        assert!(text.contains(&format!("pid {}", std::process::id())), "{text}");
        drop(first);
        let again = lock_dir(&dir).expect("free again once released");
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
