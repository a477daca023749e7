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
