//! Layer 1 on honest self-played records of every variant (the real player, umpire and relay
//! machines of the `client` crate): every envelope checks out and hands over every entry.

use rules::Variant;

#[test]
fn honest_selfplay_of_every_variant_passes_the_envelope() {
    for variant in Variant::ALL {
        {
            let seed = 1;
            let (bytes, summary) = sim::selfplay::selfplay(variant, seed).expect("selfplay");
            let checked = match verifier::envelope::check(&bytes) {
                Ok(c) => c,
                Err(f) => panic!("{variant} seed {seed}: honest record refused: {f:#?}"),
            };
            assert_eq!(checked.variant, variant);
            assert_eq!(checked.entries.len(), summary.entries, "{variant} seed {seed}");
            assert!(
                checked.commitments.iter().all(|c| c.opening.is_some()),
                "{variant} seed {seed}: every commitment opened"
            );
            let sealed = checked.entries.iter().filter(|e| e.sealed).count();
            assert_eq!(sealed > 0, checked.terms.terms.umpire.is_some(), "{variant}");
        }
    }
}
