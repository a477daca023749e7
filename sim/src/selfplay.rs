//! In-process self-play: two [`Player`]s, the [`Umpire`] where the game has one, and the real
//! [`Relay`], all driven by one deterministic loop with simulated time. See the crate docs for
//! the hooks that turn any participant into a cheater.

use client::RandomBot;
use protocol::codec::{Canonical, VERSION};
use protocol::delivery::{Delivered, GRACE_MS};
use protocol::game;
use protocol::keys::{ByColor, Identity};
use protocol::message::{Claim, Payload, SignedMessage};
use protocol::record::MatchRecord;
use protocol::relay::{Entry, Relay, RelayError, RelayEvent};
use protocol::roles::{Ask, Input, Output, Participant, Player, Policy, RoleError, Umpire};
use protocol::seal::SealSecret;
use protocol::terms::{
    AgreedTerms, ColorAssignment, Limits, MatchTerms, PlayerTerms, SignedTerms, TermsError,
    TimeControl, UmpireTerms,
};
use protocol::{Channel, PublicKey};
use rules::Mode;
use rules::{AnyObservation, GameOptions, Variant};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Simulated milliseconds between two messages.
pub const STEP_MS: u64 = 10;
/// Simulated time of the first message.
pub const START_MS: u64 = 1_000;

/// Who did something in a self-played match. Players are named by their place in the terms
/// (`players[0]`, `players[1]`); with [`ColorAssignment::FirstIsWhite`] player 0 is White.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Who {
    /// `players[i]` of the terms.
    Player(usize),
    /// The umpire.
    Umpire,
    /// The relay.
    Relay,
}

/// Every identity of a self-played match, so hooks can forge or re-sign what they change.
#[derive(Clone, Debug)]
pub struct Cast {
    /// `players[0]`, `players[1]`.
    pub players: [Identity; 2],
    /// The relay.
    pub relay: Identity,
    /// The umpire (every match has one in the cast; the terms name it only in umpired games).
    pub umpire: Identity,
}

impl Cast {
    /// The identity of `who`.
    pub fn identity(&self, who: Who) -> &Identity {
        match who {
            Who::Player(i) => &self.players[i],
            Who::Umpire => &self.umpire,
            Who::Relay => &self.relay,
        }
    }
}

/// A message on its way from its author to the relay, as the wire hook sees it.
#[derive(Debug)]
pub struct Wire<'a> {
    /// Its author.
    pub from: Who,
    /// Its position among every message sent in the match (0, 1, 2, ...).
    pub index: usize,
    /// The signed message as bytes (`SignedMessage`, canonical): change them at will.
    pub bytes: Vec<u8>,
    /// The simulated time.
    pub now_ms: u64,
    /// Everyone's identities.
    pub cast: &'a Cast,
}

impl Wire<'_> {
    /// The message, decoded (`None` if the bytes were already mangled).
    pub fn message(&self) -> Option<SignedMessage> {
        SignedMessage::from_canonical(&self.bytes).ok()
    }
}

/// What happens to a message on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// It goes to the relay (as changed by the hook, if it was).
    Send,
    /// It is lost.
    Drop,
    /// It goes to the relay twice in a row.
    Twice,
    /// It is held back and goes to the relay right after the next message (a reordering).
    Hold,
    /// The relay withholds it: it takes it only this many simulated ms later (past a deadline
    /// the relay has timed its author out first, and refuses it as late). With a
    /// [`SelfplayConfig::witness`], its author offers it to the witness once it has waited
    /// [`SimWitness::offer_after_ms`] without a receipt.
    Delay(u64),
}

/// A simulated delivery witness (docs/PROTOCOL.md, delivery notices): every message the wire
/// drops or delays is offered to it by its author, as the agent does, once it has had no
/// receipt for `offer_after_ms`; the witness signs a notice at that time with its own key
/// ([`Delivered::notarize`]) and forwards the message to the relay, which takes it or not.
#[derive(Clone, Debug)]
pub struct SimWitness {
    /// The witness's key.
    pub identity: Identity,
    /// How long an author waits for a receipt before it offers the message (default the
    /// agent's [`GRACE_MS`]; more makes the offer late).
    pub offer_after_ms: u64,
    /// Whether the relay takes what the witness forwards (a relay that only lost the original,
    /// or a player that sent its message to the witness only) or drops it too (a relay that
    /// drops the party's messages whatever path they come by).
    pub relay_takes: bool,
    /// Whether each party sends its next message only once the previous one has its receipt,
    /// was refused, or has its notice and [`client::delivery::NOTICE_WAIT_MS`] have passed since
    /// (the honest agent, docs/PROTOCOL.md 16a); `false`: it sends regardless (a cheat that
    /// sends its next message first and the earlier one only to the witness, or a v2 agent).
    pub in_order: bool,
}

impl SimWitness {
    /// A witness with key `identity`, offered messages after [`GRACE_MS`], whose forwarded
    /// messages the relay drops.
    pub fn new(identity: Identity) -> SimWitness {
        SimWitness { identity, offer_after_ms: GRACE_MS, relay_takes: false, in_order: true }
    }
}

/// An accepted entry on its way from the relay to one participant.
#[derive(Debug)]
pub struct Delivery<'a> {
    /// The recipient.
    pub to: Who,
    /// The entry (message and receipt): change it at will, e.g. re-sign a receipt with
    /// `cast.relay` to show this recipient another history.
    pub entry: Entry,
    /// Everyone's identities.
    pub cast: &'a Cast,
}

/// The wire hook: sees every message before the relay.
pub type WireHook = Box<dyn FnMut(&mut Wire<'_>) -> Fate>;
/// The delivery hook: sees every delivery; `false` withholds it from that recipient.
pub type DeliveryHook = Box<dyn FnMut(&mut Delivery<'_>) -> bool>;

/// How to play a match, and who cheats how. [`SelfplayConfig::new`] gives the honest default.
pub struct SelfplayConfig {
    /// The game and its options ([`SelfplayConfig::variant`] derives from it).
    pub game: GameOptions,
    /// Everything random derives from this.
    pub seed: u64,
    /// Colors: drawn from the contributions (default) or `players[0]` is White.
    pub colors: ColorAssignment,
    /// Whether the terms say rated (default: rated).
    pub rated: bool,
    /// Stop after this many player actions in all (moves, attempts, setups): a safety cap,
    /// never reached by the honest bots (their games end by the rules, R-C2's draws included).
    pub max_actions: u32,
    /// Replaces a player's policy (by place in the terms).
    pub policies: [Option<Box<dyn Policy>>; 2],
    /// Players (by place) whose policy the driver holds instead: the player asks through
    /// `Output::Decide` and the driver answers later, when nothing else is in flight, as a
    /// server does for a human or a remote bot.
    pub asking: [bool; 2],
    /// A hook on every payload a player is about to sign or seal (by place in the terms;
    /// feature `adversary`).
    #[cfg(feature = "adversary")]
    pub player_hooks: [Option<protocol::roles::Hook>; 2],
    /// A hook on every payload the umpire is about to sign or seal (feature `adversary`).
    #[cfg(feature = "adversary")]
    pub umpire_hook: Option<protocol::roles::Hook>,
    /// A hook on every observation the umpire is about to seal (a lying umpire; feature
    /// `adversary`).
    #[cfg(feature = "adversary")]
    pub umpire_lie: Option<protocol::roles::ObservationHook>,
    /// A hook on every signed message before the relay.
    pub wire: Option<WireHook>,
    /// A hook on every delivery from the relay to a participant.
    pub deliver: Option<DeliveryHook>,
    /// A network that interleaves, from this seed: messages in flight reach the relay in a
    /// random order (each author's own in order, as over one connection), and every entry
    /// reaches each participant after a random number of other steps (each participant's in
    /// order). `None`: everything arrives at once, in order.
    pub interleave: Option<u64>,
    /// The terms' limits (default [`Limits::DEFAULT`]).
    pub limits: Limits,
    /// Once this many player actions are in, both players offer a draw in the same step, each
    /// before it sees the other's offer (crossing offers).
    pub offer_draws_at: Option<u32>,
    /// A delivery witness that dropped and delayed messages are offered to (`None`: there is
    /// none, and a dropped message is simply lost).
    pub witness: Option<SimWitness>,
}

impl SelfplayConfig {
    /// The game (of [`SelfplayConfig::game`]).
    pub const fn variant(&self) -> Variant {
        self.game.variant()
    }

    /// An honest match of `variant` from `seed`.
    pub fn new(variant: Variant, seed: u64) -> SelfplayConfig {
        SelfplayConfig {
            game: GameOptions::default_for(variant),
            seed,
            colors: ColorAssignment::Drawn,
            rated: true,
            max_actions: 20_000,
            policies: [None, None],
            asking: [false, false],
            #[cfg(feature = "adversary")]
            player_hooks: [None, None],
            #[cfg(feature = "adversary")]
            umpire_hook: None,
            #[cfg(feature = "adversary")]
            umpire_lie: None,
            wire: None,
            deliver: None,
            interleave: None,
            limits: Limits::DEFAULT,
            offer_draws_at: None,
            witness: None,
        }
    }
}

/// A one-line account of a self-played match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The game.
    pub variant: Variant,
    /// Moves played on the board (not Kriegspiel's illegal attempts, 6x6 passes, setups,
    /// Life Freezes or tie-breaks).
    pub plies: u32,
    /// Player actions sent (moves, Kriegspiel attempts, setup and tie-break actions).
    pub actions: u32,
    /// Record entries.
    pub entries: usize,
    /// The result every participant that finished agreed on, else `None`.
    pub result: Option<Claim>,
    /// The record's size in bytes.
    pub bytes: usize,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let result = self.result.as_ref().map_or_else(
            || "no result".to_owned(),
            |c| {
                let score = match c.outcome {
                    protocol::message::Outcome::WhiteWins => "1-0",
                    protocol::message::Outcome::BlackWins => "0-1",
                    protocol::message::Outcome::Draw => "1/2-1/2",
                    protocol::message::Outcome::NoResult => "*",
                };
                format!("{score} ({})", c.reason)
            },
        );
        write!(
            f,
            "{}: {} plies, {} actions, {} entries, {}, {} bytes",
            self.variant, self.plies, self.actions, self.entries, result, self.bytes
        )
    }
}

/// Everything a self-played match produced.
#[derive(Debug)]
pub struct Selfplay {
    /// The record.
    pub record: MatchRecord,
    /// Its canonical bytes.
    pub bytes: Vec<u8>,
    /// The summary.
    pub summary: Summary,
    /// The cast (for tests that forge).
    pub cast: Cast,
    /// What each participant finished with (`None`: it never finished).
    pub finished: BTreeMap<Who, Claim>,
    /// Messages the relay refused, with why.
    pub refused: Vec<(Who, RelayError)>,
    /// Faults participants reported about what they were delivered.
    pub faults: Vec<(Who, RoleError)>,
    /// The colors.
    pub colors: Option<ByColor<PublicKey>>,
    /// The notices the [`SelfplayConfig::witness`] signed, with each message's author, in the
    /// order it signed them.
    pub notices: Vec<(Who, Delivered)>,
}

/// 32 bytes derived from the seed for one purpose (`SHA-256(label || seed_le)`).
pub fn derive(seed: u64, label: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"fogproof/selfplay/v1/");
    h.update(label.as_bytes());
    h.update(seed.to_le_bytes());
    h.finalize().into()
}

/// The cast of a self-played match from its seed.
pub fn cast(seed: u64) -> Cast {
    Cast {
        players: [
            Identity::from_seed(&derive(seed, "player-0")),
            Identity::from_seed(&derive(seed, "player-1")),
        ],
        relay: Identity::from_seed(&derive(seed, "relay")),
        umpire: Identity::from_seed(&derive(seed, "umpire")),
    }
}

fn agreed_terms(
    config: &SelfplayConfig,
    cast: &Cast,
) -> Result<(SignedTerms, AgreedTerms), TermsError> {
    let player = |i: usize| {
        let nonce = derive(config.seed, &format!("nonce-{i}"));
        PlayerTerms {
            key: cast.players[i].public(),
            seal_key: SealSecret::for_match(&cast.players[i], &nonce).public(),
            nonce,
        }
    };
    let umpire_nonce = derive(config.seed, "nonce-umpire");
    let umpired = config.variant().mode() == Mode::Umpire;
    let terms = MatchTerms {
        version: VERSION,
        game: config.game,
        players: [player(0), player(1)],
        colors: config.colors,
        rated: config.rated,
        relay: cast.relay.public(),
        umpire: umpired.then(|| UmpireTerms {
            key: cast.umpire.public(),
            seal_key: SealSecret::for_match(&cast.umpire, &umpire_nonce).public(),
            nonce: umpire_nonce,
        }),
        time_control: TimeControl {
            initial_ms: 3_600_000,
            increment_ms: 0,
            reveal_ms: 60_000,
            answer_ms: 60_000,
        },
        limits: config.limits,
    };
    let signed = SignedTerms::sign_all(
        &terms,
        &[&cast.players[0], &cast.players[1], &cast.relay, &cast.umpire],
    )?;
    let agreed = signed.verify()?;
    Ok((signed, agreed))
}

enum Machine {
    Player(Box<Player>),
    Umpire(Box<Umpire>),
}

impl Machine {
    fn handle(&mut self, input: Input) -> Result<(), RoleError> {
        match self {
            Machine::Player(p) => p.handle(input),
            Machine::Umpire(u) => u.handle(input),
        }
    }
    fn poll_output(&mut self) -> Option<Output> {
        match self {
            Machine::Player(p) => p.poll_output(),
            Machine::Umpire(u) => u.poll_output(),
        }
    }
}

/// Why a self-play could not even start.
#[derive(Debug)]
pub enum SelfplayError {
    /// The terms were refused.
    Terms(TermsError),
    /// The game could not be set up (e.g. a bad option).
    Game(protocol::game::GameError),
    /// The relay refused to start.
    Relay(RelayError),
}

impl std::fmt::Display for SelfplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelfplayError::Terms(e) => write!(f, "terms: {e}"),
            SelfplayError::Game(e) => write!(f, "game: {e}"),
            SelfplayError::Relay(e) => write!(f, "relay: {e}"),
        }
    }
}

impl std::error::Error for SelfplayError {}

/// An honest self-played match of `variant` from `seed`: the record's bytes and a summary.
pub fn selfplay(variant: Variant, seed: u64) -> Result<(Vec<u8>, Summary), SelfplayError> {
    let s = selfplay_with(SelfplayConfig::new(variant, seed))?;
    Ok((s.bytes, s.summary))
}

/// Plays a match as configured (see the crate docs for the hooks).
pub fn selfplay_with(mut config: SelfplayConfig) -> Result<Selfplay, SelfplayError> {
    let cast = cast(config.seed);
    let (signed, agreed) = agreed_terms(&config, &cast).map_err(SelfplayError::Terms)?;
    let umpired = config.variant().mode() == Mode::Umpire;
    let mut machines: Vec<(Who, Machine)> = Vec::new();
    let mut deciders: [Option<Box<dyn Policy>>; 2] = [None, None];
    for (i, decider) in deciders.iter_mut().enumerate() {
        let policy: Box<dyn Policy> = config.policies[i]
            .take()
            .unwrap_or_else(|| Box::new(RandomBot::new(derive(config.seed, &format!("bot-{i}")))));
        let secret = derive(config.seed, &format!("secret-{i}"));
        let identity = cast.players[i].clone();
        #[cfg_attr(
            not(feature = "adversary"),
            allow(unused_mut, reason = "only an adversarial test's hooks change a player")
        )]
        let mut p = if config.asking[i] {
            *decider = Some(policy);
            Player::asking(identity, agreed.clone(), secret)
        } else {
            Player::new(identity, agreed.clone(), secret, policy)
        }
        .map_err(SelfplayError::Game)?;
        #[cfg(feature = "adversary")]
        if let Some(h) = config.player_hooks[i].take() {
            p.set_hook(h);
        }
        machines.push((Who::Player(i), Machine::Player(Box::new(p))));
    }
    if umpired {
        #[cfg_attr(
            not(feature = "adversary"),
            allow(unused_mut, reason = "only an adversarial test's hooks change the umpire")
        )]
        let mut u =
            Umpire::new(cast.umpire.clone(), agreed.clone(), derive(config.seed, "umpire-secret"))
                .map_err(SelfplayError::Game)?;
        #[cfg(feature = "adversary")]
        {
            if let Some(h) = config.umpire_hook.take() {
                u.set_hook(h);
            }
            if let Some(h) = config.umpire_lie.take() {
                u.set_observation_hook(h);
            }
        }
        machines.push((Who::Umpire, Machine::Umpire(Box::new(u))));
    }
    let mut relay =
        Relay::new(cast.relay.clone(), agreed.clone(), START_MS).map_err(SelfplayError::Relay)?;
    let start = relay.entries()[0].clone();
    let mut d = Driver {
        cast: &cast,
        machines,
        relay: &mut relay,
        config: &mut config,
        now: START_MS,
        sent: 0,
        held: Vec::new(),
        finished: BTreeMap::new(),
        refused: Vec::new(),
        faults: Vec::new(),
        network: None,
        deciders,
        questions: VecDeque::new(),
        match_id: agreed.match_id,
        timers: Vec::new(),
        notices: Vec::new(),
        unconfirmed: Vec::new(),
    };
    if let Some(seed) = d.config.interleave {
        let rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_seed(derive(
            seed, "network",
        ));
        d.network = Some((rng, vec![VecDeque::new(); d.machines.len()]));
    }
    d.deliver(&start, Channel::Public);
    d.run();
    let Driver { finished, refused, faults, machines, notices, .. } = d;
    let actions = machines
        .iter()
        .map(|(_, m)| if let Machine::Player(p) = m { p.actions() } else { 0 })
        .sum();
    let entries = relay.entries().to_vec();
    let record = MatchRecord { version: VERSION, terms: signed, entries };
    let bytes = record.to_canonical();
    let claims: BTreeSet<_> = finished
        .values()
        .map(|c| (format!("{:?}", c.outcome), c.reason.name().to_owned()))
        .collect();
    let result = (claims.len() == 1).then(|| finished.values().next().cloned()).flatten();
    let summary = Summary {
        variant: config.variant(),
        plies: plies(config.variant(), &record),
        actions,
        entries: record.entries.len(),
        result,
        bytes: bytes.len(),
    };
    Ok(Selfplay {
        colors: relay.colors(),
        record,
        bytes,
        summary,
        cast,
        finished,
        refused,
        faults,
        notices,
    })
}

struct Driver<'a> {
    cast: &'a Cast,
    machines: Vec<(Who, Machine)>,
    relay: &'a mut Relay,
    config: &'a mut SelfplayConfig,
    now: u64,
    sent: usize,
    held: Vec<(Who, Vec<u8>)>,
    finished: BTreeMap<Who, Claim>,
    refused: Vec<(Who, RelayError)>,
    faults: Vec<(Who, RoleError)>,
    /// With [`SelfplayConfig::interleave`]: its random stream, and the entries on their way to
    /// each machine (by index in `machines`).
    network: Option<(rand_chacha::ChaCha20Rng, Vec<VecDeque<Entry>>)>,
    /// The policies of asking players (by place), and their questions not yet answered.
    deciders: [Option<Box<dyn Policy>>; 2],
    questions: VecDeque<(usize, Ask)>,
    match_id: protocol::MatchId,
    /// Delayed messages and offers to the witness, by simulated time (earliest first, then in
    /// the order they were set).
    timers: Vec<(u64, Timer)>,
    notices: Vec<(Who, Delivered)>,
    /// With a witness that keeps parties in order ([`SimWitness::in_order`]): each party's last
    /// message sent without a receipt or refusal yet, and when its notice lets the next one go.
    unconfirmed: Vec<(Who, Vec<u8>, Option<u64>)>,
}

/// Something due at a simulated time.
enum Timer {
    /// A delayed message reaches the relay.
    Arrive(Who, Vec<u8>),
    /// A message without a receipt is offered to the witness.
    Offer(Who, Vec<u8>),
    /// A party held back by its gate may send again.
    Wake,
}

impl Driver<'_> {
    /// With an interleaving network, one random step: the relay takes the next message of a
    /// random author in flight, or a random machine gets its next entry. `false` when nothing
    /// is in flight.
    fn network_step(&mut self, queue: &mut VecDeque<(Who, SignedMessage)>) -> bool {
        let open: Vec<bool> = queue.iter().map(|(who, _)| self.may_send(*who)).collect();
        let Some((rng, inboxes)) = &mut self.network else { return false };
        let mut authors: Vec<usize> = Vec::new();
        let mut firsts: Vec<usize> = Vec::new();
        for (i, (who, _)) in queue.iter().enumerate() {
            let w = match who {
                Who::Player(p) => *p,
                Who::Umpire => 2,
                Who::Relay => 3,
            };
            if !authors.contains(&w) {
                authors.push(w);
                if open[i] {
                    firsts.push(i);
                }
            }
        }
        let waiting: Vec<usize> = (0..inboxes.len()).filter(|i| !inboxes[*i].is_empty()).collect();
        let options = firsts.len() + waiting.len();
        if options == 0 {
            return false;
        }
        let pick = usize::try_from(rand_core::Rng::next_u64(rng) % options as u64).unwrap_or(0);
        if let Some(&at) = firsts.get(pick) {
            if let Some((who, m)) = queue.remove(at) {
                self.send(who, m);
            }
        } else {
            let i = waiting[pick - firsts.len()];
            if let Some(entry) = inboxes[i].pop_front() {
                let who = self.machines[i].0;
                if let Err(e) = self.machines[i].1.handle(Input::Delivered(entry)) {
                    self.faults.push((who, e));
                }
            }
        }
        true
    }

    /// Whether `who` may send its next message now: its previous one has a receipt or was
    /// refused, or its notice is [`client::delivery::NOTICE_WAIT_MS`] old (docs/PROTOCOL.md 16a).
    fn may_send(&self, who: Who) -> bool {
        self.unconfirmed
            .iter()
            .filter(|(w, _, _)| *w == who)
            .all(|(_, _, open)| open.is_some_and(|t| t <= self.now))
    }

    /// The first queued message whose author may send now (each author's in order).
    fn next_sendable(&self, queue: &VecDeque<(Who, SignedMessage)>) -> Option<usize> {
        let mut blocked: Vec<Who> = Vec::new();
        for (i, (who, _)) in queue.iter().enumerate() {
            if blocked.contains(who) {
                continue;
            }
            if self.may_send(*who) {
                return Some(i);
            }
            blocked.push(*who);
        }
        None
    }

    /// A message of `bytes` was receipted or refused: its author's gate opens.
    fn confirmed(&mut self, bytes: &[u8]) {
        self.unconfirmed.retain(|(_, b, _)| b.as_slice() != bytes);
    }

    fn actions(&self) -> u32 {
        self.machines
            .iter()
            .map(|(_, m)| if let Machine::Player(p) = m { p.actions() } else { 0 })
            .sum()
    }

    fn run(&mut self) {
        let mut queue: VecDeque<(Who, SignedMessage)> = VecDeque::new();
        let mut capped = false;
        loop {
            for i in 0..self.machines.len() {
                let who = self.machines[i].0;
                while let Some(out) = self.machines[i].1.poll_output() {
                    match out {
                        Output::Send(m) => queue.push_back((who, m)),
                        Output::Decide(ask) => {
                            if let Who::Player(p) = who {
                                self.questions.push_back((p, ask));
                            }
                        }
                        Output::Finished(c) => {
                            self.finished.insert(who, c);
                        }
                    }
                }
            }
            if self.actions() > self.config.max_actions && !capped {
                // The cap: player 0 resigns, so the match still ends properly (claims,
                // openings, disclosures) and its record verifies.
                capped = true;
                if let Some((_, Machine::Player(p))) =
                    self.machines.iter_mut().find(|(w, _)| *w == Who::Player(0))
                {
                    p.resign();
                }
                continue;
            }
            if let Some(n) = self.config.offer_draws_at
                && self.actions() >= n
            {
                // Both offer before either offer is delivered: the offers cross.
                self.config.offer_draws_at = None;
                for (_, m) in &mut self.machines {
                    if let Machine::Player(p) = m {
                        p.offer_draw();
                    }
                }
                continue;
            }
            if self.fire_due() {
                continue;
            }
            if self.network.is_some() {
                if self.network_step(&mut queue) {
                    continue;
                }
            } else if let Some((who, m)) = self.next_sendable(&queue).and_then(|i| queue.remove(i))
            {
                self.send(who, m);
                continue;
            }
            if let Some((who, bytes)) = self.held.pop() {
                self.accept(who, &bytes);
                continue;
            }
            if self.answer() {
                continue;
            }
            // Idle: only a timer or a relay deadline can move things on (the relay's
            // coordinator knows who owes what): jump to the earliest. A timer at a deadline is in
            // time (a deadline is missed only after it).
            let timer = self.timers.iter().map(|(t, _)| *t).min();
            match (timer, self.relay.poll_timeout()) {
                (Some(t), due) if due.is_none_or(|d| t <= d) => {
                    self.now = self.now.max(t);
                    self.fire_due();
                }
                (_, Some(due)) => {
                    self.now = self.now.max(due + 1);
                    self.relay.handle_timeout(self.now);
                    self.relay_events();
                }
                (_, None) => return,
            }
        }
    }

    /// Answers the oldest question of an asking player, a step later (time passes while it
    /// decides). `false` when none is waiting.
    fn answer(&mut self) -> bool {
        let Some((p, ask)) = self.questions.pop_front() else { return false };
        let variant = self.config.variant();
        let Some(i) = self.machines.iter().position(|(w, _)| *w == Who::Player(p)) else {
            return true;
        };
        let (Some(policy), Machine::Player(player)) =
            (&mut self.deciders[p], &mut self.machines[i].1)
        else {
            return true;
        };
        let Some(side) = player.side() else { return true };
        self.now += STEP_MS;
        let answer = policy.decide(variant, side, &ask);
        if let Err(e) = player.handle(Input::Decision(answer)) {
            self.faults.push((Who::Player(p), e));
        }
        true
    }

    fn send(&mut self, who: Who, m: SignedMessage) {
        self.now += STEP_MS;
        let index = self.sent;
        self.sent += 1;
        let mut wire =
            Wire { from: who, index, bytes: m.to_canonical(), now_ms: self.now, cast: self.cast };
        let fate = match &mut self.config.wire {
            Some(h) => h(&mut wire),
            None => Fate::Send,
        };
        let bytes = wire.bytes;
        if self.config.witness.as_ref().is_some_and(|w| w.in_order) {
            self.unconfirmed.push((who, bytes.clone(), None));
        }
        let held = std::mem::take(&mut self.held);
        match fate {
            Fate::Send => self.accept(who, &bytes),
            Fate::Twice => {
                self.accept(who, &bytes);
                self.accept(who, &bytes);
            }
            Fate::Hold => self.held.push((who, bytes)),
            Fate::Drop | Fate::Delay(_) => {
                if let Fate::Delay(ms) = fate {
                    self.timers.push((self.now + ms, Timer::Arrive(who, bytes.clone())));
                }
                if let Some(w) = &self.config.witness {
                    self.timers.push((self.now + w.offer_after_ms, Timer::Offer(who, bytes)));
                }
            }
        }
        for (w, b) in held {
            self.accept(w, &b);
        }
    }

    /// Fires the earliest timer due by now; `false` if none is.
    fn fire_due(&mut self) -> bool {
        let Some(at) = self
            .timers
            .iter()
            .enumerate()
            .filter(|(_, (t, _))| *t <= self.now)
            .min_by_key(|(i, (t, _))| (*t, *i))
            .map(|(i, _)| i)
        else {
            return false;
        };
        let (time, timer) = self.timers.remove(at);
        let receipted = |relay: &Relay, bytes: &[u8]| {
            SignedMessage::from_canonical(bytes)
                .is_ok_and(|m| relay.entries().iter().any(|e| e.message == m))
        };
        match timer {
            Timer::Arrive(who, bytes) => {
                if !receipted(self.relay, &bytes) {
                    self.accept(who, &bytes);
                }
            }
            Timer::Wake => {}
            Timer::Offer(who, bytes) => {
                let Some(witness) = self.config.witness.clone() else { return true };
                let Ok(m) = SignedMessage::from_canonical(&bytes) else { return true };
                if receipted(self.relay, &bytes) {
                    return true; // its receipt came: nothing to offer
                }
                let notice = Delivered::notarize(&witness.identity, self.match_id, m, time);
                self.notices.push((who, notice));
                // The notice is in hand: the author's next message may go once the wait is over.
                let open = time + client::delivery::NOTICE_WAIT_MS;
                for (_, b, at) in &mut self.unconfirmed {
                    if *b == bytes {
                        *at = Some(open);
                    }
                }
                self.timers.push((open, Timer::Wake));
                if witness.relay_takes {
                    self.accept(who, &bytes);
                }
            }
        }
        true
    }

    fn accept(&mut self, who: Who, bytes: &[u8]) {
        // Deadlines missed by now are timed out first (their notices delivered first).
        self.relay.handle_timeout(self.now);
        self.relay_events();
        match self.relay.accept(bytes, self.now) {
            Ok(accepted) => self.deliver(&accepted.entry, accepted.body.channel),
            Err(e) => self.refused.push((who, e)),
        }
        self.confirmed(bytes);
        self.relay_events();
    }

    fn relay_events(&mut self) {
        while let Some(ev) = self.relay.poll_event() {
            if let RelayEvent::TimedOut { notice, .. } | RelayEvent::Closed { notice } = &ev {
                self.deliver(notice, Channel::Public);
            }
            for (_, m) in &mut self.machines {
                let _ = m.handle(Input::Relay(ev.clone()));
            }
        }
    }

    fn deliver(&mut self, entry: &Entry, channel: Channel) {
        let colors = self.relay.colors();
        for i in 0..self.machines.len() {
            let who = self.machines[i].0;
            let gets = match (channel.side(), who) {
                (None, _) | (Some(_), Who::Umpire) => true,
                (Some(side), Who::Player(p)) => {
                    colors.is_some_and(|c| c[side] == self.cast.players[p].public())
                }
                (Some(_), Who::Relay) => false,
            };
            if !gets {
                continue;
            }
            let mut delivery = Delivery { to: who, entry: entry.clone(), cast: self.cast };
            if let Some(h) = &mut self.config.deliver
                && !h(&mut delivery)
            {
                continue;
            }
            if let Some((_, inboxes)) = &mut self.network {
                inboxes[i].push_back(delivery.entry);
            } else if let Err(e) = self.machines[i].1.handle(Input::Delivered(delivery.entry)) {
                self.faults.push((who, e));
            }
        }
    }
}

/// Moves played on the board, counted from what the record proves: public moves in open and
/// owner games; in umpired games the umpire's disclosed answers (a Kriegspiel `Legal` answer
/// as told to White, a SIC `YouMoved`, a 6x6 `Moved` event).
fn plies(variant: Variant, record: &MatchRecord) -> u32 {
    let disclosed = record.disclosures();
    let mut n = 0;
    for e in &record.entries {
        let Ok(body) = e.message.verify() else { continue };
        let payload = match (&body.payload, disclosed.get(&e.message.hash())) {
            (Payload::Sealed(_), Some((_, d))) => Payload::from_canonical(&d.plaintext).ok(),
            (p, _) => Some(p.clone()),
        };
        let Some(payload) = payload else { continue };
        let count = match (&payload, body.channel) {
            (Payload::Action(bytes), Channel::Public) => {
                rules::intrigue::Action::from_canonical(bytes)
                    .map_or(true, |a| matches!(a, rules::intrigue::Action::Move(_)))
            }
            (Payload::Observation(bytes), channel) if channel != Channel::Public => {
                let white = channel == Channel::WhiteUmpire;
                match game::decode_observation(variant, bytes) {
                    Ok(AnyObservation::Kriegspiel(rules::kriegspiel::Answer::Legal(_))) => white,
                    Ok(AnyObservation::Sic(rules::sic::Observation::YouMoved(_))) => true,
                    Ok(AnyObservation::SecretChess6(o)) => o
                        .events
                        .iter()
                        .any(|e| matches!(e, rules::secretchess6::Event::Moved { .. })),
                    _ => false,
                }
            }
            _ => false,
        };
        n += u32::from(count);
    }
    n
}
