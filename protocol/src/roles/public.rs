//! What a participant tracks of the public channel: the commitments, the revealed
//! contributions and the colors. (What a player knows of the game itself is its
//! `rules::seat::Seat`.)

use crate::commitment::Committed;
use crate::keys::ByColor;
use crate::message::{MessageBody, Payload};
use crate::seed::draw_colors;
use crate::terms::AgreedTerms;
use crate::{Commitment, PublicKey};
use std::collections::BTreeMap;

/// The public channel as far as setup goes: commitments, revealed contributions, colors.
#[derive(Clone, Debug, Default)]
pub(crate) struct PublicLog {
    pub commitments: Vec<Committed>,
    pub contributions: BTreeMap<PublicKey, [u8; 32]>,
    pub colors: Option<ByColor<PublicKey>>,
}

impl PublicLog {
    /// Colors become known here once both public contributions are revealed, even when the
    /// terms fix them: the setup phase begins only then (PROTOCOL.md, the coordinator).
    pub fn new(_terms: &AgreedTerms) -> PublicLog {
        PublicLog::default()
    }

    /// Records a delivered public message (the relay already checked openings).
    pub fn observe(&mut self, terms: &AgreedTerms, body: &MessageBody) {
        match &body.payload {
            Payload::Commit { purpose, commitment } => self.commitments.push(Committed {
                author: body.author,
                purpose: *purpose,
                commitment: *commitment,
            }),
            Payload::Reveal { purpose, opening }
                if *purpose == crate::flow::PUBLIC_CONTRIBUTION =>
            {
                if let (Ok(c), Some(_)) = (
                    <[u8; 32]>::try_from(opening.value.as_slice()),
                    terms.terms.player(&body.author),
                ) {
                    self.contributions.insert(body.author, c);
                }
                let t = &terms.terms;
                let pair = (
                    self.contributions.get(&t.players[0].key),
                    self.contributions.get(&t.players[1].key),
                );
                if let (None, (Some(c0), Some(c1))) = (self.colors, pair) {
                    let drawn = || draw_colors(t, &terms.match_id, &[*c0, *c1]);
                    self.colors = Some(t.fixed_colors().unwrap_or_else(drawn));
                }
            }
            _ => {}
        }
    }

    /// `author`'s commitment for `purpose`, if published.
    pub fn commitment(
        &self,
        author: &PublicKey,
        purpose: crate::commitment::Purpose,
    ) -> Option<Commitment> {
        self.commitments
            .iter()
            .find(|c| c.author == *author && c.purpose == purpose)
            .map(|c| c.commitment)
    }
}
