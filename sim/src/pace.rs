//! A bot that takes its time: a remote decider playing a [`client::RandomBot`]'s moves, each
//! after a fixed pause. Two bots at full speed over sockets without Nagle's delays finish a whole
//! game in well under a second, too fast for a test that must act while the match is still live
//! (kill a server or an agent, fill the server's places and be refused).

use client::RandomBot;
use client::seat::{Decider, SeatCommand, SeatEvent};
use protocol::roles::Policy;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

/// A remote decider that plays `bot`'s moves, each `pace` after its question: the decider and
/// the sender the seat's events go to. It needs a Tokio runtime (it spawns the task that answers).
pub fn unhurried(
    mut bot: RandomBot,
    pace: Duration,
) -> (Decider, Option<UnboundedSender<SeatEvent>>) {
    let (cmd_tx, cmd_rx) = tokio::sync::mpsc::channel(4);
    let (ev_tx, mut ev_rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut seen = None;
        while let Some(event) = ev_rx.recv().await {
            match event {
                SeatEvent::View { view, .. } => seen = Some((view.variant, view.side)),
                SeatEvent::Ask(ask) => {
                    let Some((variant, side)) = seen else { continue };
                    tokio::time::sleep(pace).await;
                    let action = bot.decide(variant, side, &ask);
                    if cmd_tx.send(SeatCommand::Decide(action)).await.is_err() {
                        return;
                    }
                }
                _ => {}
            }
        }
    });
    (Decider::Remote(cmd_rx), Some(ev_tx))
}
