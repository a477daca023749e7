//! Observation perft for 6x6 Secret Chess (`data/secretchess6.obsperft`): from a few setups,
//! every line of play to a small depth, and an FNV digest per side of the JSON of everything
//! that side is told along the way (setup answers included). Pinned per side; regenerate with
//! `FOGPROOF_BLESS=1`.

mod common;

use common::Fnv;
use rules::secretchess6::{Action, Options, State};
use rules::{ByColor, Color, Game};

fn told_json(o: &Option<rules::secretchess6::Observation>) -> String {
    serde_json::to_string(o).expect("observations serialise")
}

fn walk(s: &State, depth: u32, digests: &mut ByColor<Fnv>, lines: &mut u64) {
    let actions = s.legal_actions();
    if depth == 0 || actions.is_empty() {
        *lines += 1;
        return;
    }
    for (c, a) in actions {
        let t = s.apply(c, &a).expect("legal_actions are accepted");
        for side in Color::ALL {
            digests[side].str(&told_json(&t.told[side]));
        }
        walk(&t.state, depth - 1, digests, lines);
        for side in Color::ALL {
            // Close the subtree so that different tree shapes cannot share a digest.
            digests[side].str("^");
        }
    }
}

fn squares(field: &str) -> rules::Bitboard {
    if field == "-" {
        return rules::Bitboard::EMPTY;
    }
    let sq = |t: &str| rules::Square::parse(t, rules::BoardSize::Six).expect("a 6x6 square");
    field.split(',').map(sq).collect()
}

/// Returns the digests and the number of lines for one line of the data file.
fn run(fields: &[String]) -> (ByColor<String>, u64) {
    let options: Options = serde_json::from_str(&fields[1]).expect("options JSON");
    let mut s = State::new(options);
    let mut digests = ByColor::<Fnv>::default();
    for (c, formation, falses) in
        [(Color::White, &fields[2], &fields[3]), (Color::Black, &fields[4], &fields[5])]
    {
        let formation = rules::secretchess6::Formation::parse(formation).expect("a formation");
        let a = Action::Setup { formation, false_squares: squares(falses) };
        let t = s.apply(c, &a).expect("valid setup");
        for side in Color::ALL {
            digests[side].str(&told_json(&t.told[side]));
        }
        s = t.state;
    }
    let depth: u32 = fields[6].parse().expect("depth");
    let mut lines = 0;
    walk(&s, depth, &mut digests, &mut lines);
    (digests.map(|d| d.hex()), lines)
}

#[test]
fn secretchess6_observation_perft() {
    let bless = std::env::var_os("FOGPROOF_BLESS").is_some();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/secretchess6.obsperft");
    let text = std::fs::read_to_string(&path).expect("data file");
    let mut out = String::new();
    let mut failures = Vec::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            out.push_str(raw);
            out.push('\n');
            continue;
        }
        let fields: Vec<String> = line.split(';').map(|f| f.trim().to_string()).collect();
        let (got, lines) = run(&fields);
        let want = (fields.get(7).cloned(), fields.get(8).cloned(), fields.get(9).cloned());
        let got_fields =
            (Some(lines.to_string()), Some(got.white.clone()), Some(got.black.clone()));
        if want != got_fields {
            failures.push(format!("{}: want {want:?}, got {got_fields:?}", fields[0]));
        }
        out.push_str(&format!(
            "{} ; {lines} ; {} ; {}\n",
            fields[..7].join(" ; "),
            got.white,
            got.black
        ));
    }
    if bless {
        std::fs::write(&path, out).expect("rewrite the data file");
    } else {
        assert!(failures.is_empty(), "observation digests changed:\n{}", failures.join("\n"));
    }
}
