//! Whom a player's agent trusts beyond the server it talks to: umpires (a challenge or terms
//! naming any other umpire are refused) and the witnesses that must have cosigned the log's
//! checkpoints (docs/LEDGER.md, witnesses). Shared by `fogproof agent`, `bot`, `umpire` and
//! `play`.

use anyhow::{Context, Result};
use clap::Args;
use client::agent::Agent;
use client::promise::WitnessPolicy;
use ledger::note::{KeyKind, VerifierKey};
use protocol::PublicKey;

/// `--trust-umpire`, `--witness`, `--witness-quorum`.
#[derive(Args, Clone, Debug, Default)]
pub struct TrustArgs {
    /// Also trust this umpire (an ed25519 public key, as the lobby shows it); the server's own
    /// umpire service is trusted by default. Repeatable.
    #[arg(long = "trust-umpire", value_name = "KEY")]
    pub trust_umpire: Vec<String>,
    /// A witness whose cosignature the log's checkpoints should carry (a `name+id+key` vkey,
    /// as `fogproof witness key` prints it). Repeatable. Default: the witnesses the server
    /// announces at /api/ledger.
    #[arg(long = "witness", value_name = "VKEY")]
    pub witness: Vec<String>,
    /// How many of the witnesses must have cosigned (default: all given with --witness, or
    /// the server's quorum and at least one). A checkpoint below it is reported as a warning.
    #[arg(long = "witness-quorum", value_name = "K")]
    pub witness_quorum: Option<usize>,
}

impl TrustArgs {
    /// The witness policy these flags give, or what is wrong with them.
    pub fn witness_policy(&self) -> Result<WitnessPolicy> {
        let witnesses = self
            .witness
            .iter()
            .map(|w| {
                let key = VerifierKey::parse(w).with_context(|| format!("--witness {w}"))?;
                anyhow::ensure!(
                    key.kind() == KeyKind::Cosignature,
                    "--witness {w}: not a witness cosignature key (type 0x04)"
                );
                Ok(key)
            })
            .collect::<Result<Vec<_>>>()?;
        if let Some(k) = self.witness_quorum {
            anyhow::ensure!(
                witnesses.is_empty() || k <= witnesses.len(),
                "--witness-quorum {k}: more than the {} witness(es) given",
                witnesses.len()
            );
        }
        Ok(WitnessPolicy { witnesses, quorum: self.witness_quorum })
    }

    /// The umpires these flags add.
    pub fn umpires(&self) -> Result<Vec<PublicKey>> {
        self.trust_umpire
            .iter()
            .map(|k| k.parse::<PublicKey>().map_err(|e| anyhow::anyhow!("--trust-umpire {k}: {e}")))
            .collect()
    }

    /// Checks the flags (before signing in, so a typo fails fast).
    pub fn check(&self) -> Result<()> {
        self.witness_policy().map(drop).and(self.umpires().map(drop))
    }

    /// Applies them to a signed-in agent.
    pub fn apply(&self, agent: &Agent) -> Result<()> {
        for key in self.umpires()? {
            agent.trust_umpire(key);
        }
        agent.set_witness_policy(self.witness_policy()?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ledger::note::SignerKey;

    #[test]
    fn flags_name_what_is_wrong() {
        let witness = SignerKey::from_seed("w.test", KeyKind::Cosignature, [4; 32]).expect("key");
        let log = SignerKey::from_seed("log.test", KeyKind::Ed25519, [5; 32]).expect("key");
        let ok = TrustArgs {
            witness: vec![witness.verifier().to_string()],
            witness_quorum: Some(1),
            ..TrustArgs::default()
        };
        assert_eq!(ok.witness_policy().expect("valid").witnesses.len(), 1);
        let log_as_witness =
            TrustArgs { witness: vec![log.verifier().to_string()], ..TrustArgs::default() };
        let e = log_as_witness.check().unwrap_err().to_string();
        assert!(e.contains("not a witness cosignature key"), "{e}");
        let too_many = TrustArgs { witness_quorum: Some(2), ..ok.clone() };
        assert!(too_many.check().unwrap_err().to_string().contains("more than the 1"));
        let bad_umpire = TrustArgs { trust_umpire: vec!["zz".into()], ..TrustArgs::default() };
        assert!(bad_umpire.check().unwrap_err().to_string().starts_with("--trust-umpire zz"));
    }
}
