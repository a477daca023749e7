#!/usr/bin/env python3
"""Out-of-process oracle for fogproof's FIDE Dutch pairings (ledger/tests/pairing_oracle.rs).

Reads TRF-16 tournaments from standard input, separated by lines that are exactly
`%%END%%`, and re-pairs every round of each with the independent `caissify-pairings` Dutch
engine (its Free Pairings Checker, `caissify_pairings.fpc.check_trf`: it rebuilds each round's
input from the rounds before it and compares the set of pairs and byes, not colours). Writes one
JSON object per tournament, one per line:

    {"rounds": <rounds checked>, "mismatched": [<round numbers>],
     "colours": [<rounds with the same pairs but different colours>], "details": [<text>...]}

`--probe` only checks the package imports (exit 0) or says how to install it (exit 3).

`--fide-a4b` makes the engine read C.04.3 A.4.b as FIDE writes it ("a player who, for whatever
reason, does not play in a round, also receives a downfloat"): `caissify-pairings` 0.5.0 gives a
forfeit loser and both sides of a double forfeit no float (its Free Pairings Checker builds the
float history that way); with the flag, those rounds are downfloats in the history it passes to
the engine. Nothing else changes.

Install the oracle with:  python3 -m pip install --user caissify-pairings==0.5.0
"""

import json
import sys

INSTALL = "python3 -m pip install --user caissify-pairings==0.5.0"


def main() -> int:
    try:
        from caissify_pairings.fpc import check_trf
    except ImportError as exc:  # pragma: no cover - exercised when the package is missing
        sys.stderr.write(f"caissify-pairings is not installed ({exc}); install it with: {INSTALL}\n")
        return 3
    if "--probe" in sys.argv[1:]:
        return 0
    if "--fide-a4b" in sys.argv[1:]:
        import caissify_pairings.fpc as fpc

        build = fpc._build_engine_players

        def with_unplayed_downfloats(player_map, target_round):
            players = build(player_map, target_round)
            for p in players:
                results = player_map[p["id"]].get("results", {})
                # One float per round with a result entry, as the checker builds them.
                k = 0
                for rnd in range(1, target_round):
                    r = results.get(rnd)
                    if r is None:
                        continue
                    if r.get("opponent") is not None and r.get("result") == "-" and k < len(p["float_history"]):
                        p["float_history"][k] = "down"
                    k += 1
            return players

        fpc._build_engine_players = with_unplayed_downfloats
    text = sys.stdin.read()
    chunks = [c for c in text.split("%%END%%\n") if c.strip()]
    for chunk in chunks:
        try:
            report = check_trf(chunk)
        except Exception as exc:  # report, do not crash the batch
            print(json.dumps({"rounds": 0, "mismatched": [-1], "details": [f"oracle error: {exc}"]}))
            continue
        mismatched = [r["round"] for r in report["rounds"] if not r["match"]]
        details = []
        colours = []
        for r in report["rounds"]:
            if not r["match"]:
                details.append(f"round {r['round']}: " + "; ".join(r["discrepancies"]))
                continue
            # Same pairs: compare who has white (the checker itself ignores colours).
            ours = {(p["white"], p.get("black")) for p in r["trf_pairings"] if p.get("black")}
            theirs = {(p["white"], p.get("black")) for p in r["engine_pairings"] if p.get("black")}
            if ours != theirs:
                colours.append(r["round"])
                details.append(f"round {r['round']} colours: ours {sorted(ours - theirs)} oracle {sorted(theirs - ours)}")
        print(json.dumps({"rounds": len(report["rounds"]), "mismatched": mismatched,
                          "colours": colours, "details": details}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
