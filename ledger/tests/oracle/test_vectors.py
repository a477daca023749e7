#!/usr/bin/env python3
"""Checks docs/LEDGER.md's test-vector appendix with ledger_reader.py's functions.

The vectors are read out of docs/LEDGER.md (the blocks after `<!-- spec: NAME -->` markers,
and the prose that describes what each one encodes). Python 3.11; needs ledger_reader.py's
`cryptography` package.

Usage: python3 ledger/tests/oracle/test_vectors.py [path/to/LEDGER.md]
"""

import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ledger_reader as lr  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "..", "docs", "LEDGER.md")


def load_blocks(text):
    blocks = {}
    for m in re.finditer(r"<!-- spec: ([a-z0-9-]+) -->\s*\n```[a-z]*\n(.*?)\n```", text, re.S):
        blocks[m.group(1)] = m.group(2) + "\n"
    return blocks


def hexblock(block):
    out = bytearray()
    for line in block.splitlines():
        line = line.split(";", 1)[0]
        out += bytes.fromhex("".join(line.split()))
    return bytes(out)


class T:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def eq(self, name, got, want):
        if got == want:
            self.passed += 1
            print("PASS %s" % name)
        else:
            self.failed += 1
            print("FAIL %s:\n  got  %r\n  want %r" % (name, got, want))

    def true(self, name, cond, detail=""):
        self.eq(name + (" (%s)" % detail if detail else ""), bool(cond), True)

    def raises(self, name, f):
        try:
            f()
        except lr.DecodeError as e:
            self.passed += 1
            print("PASS %s (refused: %s)" % (name, e))
            return
        self.failed += 1
        print("FAIL %s: accepted" % name)


def parse_standings_prose(text):
    """The standings vector's tournament, from the prose and table before its blocks."""
    sec = text[text.index('<a id="vector-standings"></a>'):text.index("<!-- spec: standings-table")]
    pl = re.search(r"Players, by index: (.*?)\. Pairing numbers", sec, re.S).group(1)
    players = []
    for m in re.finditer(r"(\d+)\s+(\w+)\s+\((?:rating\s+)?(\d+|unrated)\)", pl):
        i = int(m.group(1))
        assert i == len(players)
        players.append({"key": bytes([i + 1]) * 32, "name": m.group(2),
                        "rating": None if m.group(3) == "unrated" else int(m.group(3))})
    tbs = re.search(r"tie-breaks,\s+in\s+order:\s+(.*?)\.", sec, re.S).group(1)
    tie_breaks = [t.strip() for t in tbs.split(",")]
    pn = re.search(r"Pairing numbers: (.*?)\.", sec).group(1)
    pairing_numbers = {m.group(1): int(m.group(2)) for m in re.finditer(r"(\w+)\s+(\d+)", pn)}
    names = {p["name"]: i for i, p in enumerate(players)}
    results = {"½–½": "1/2-1/2", "1–0": "1-0", "0–1": "0-1", "1–0 forfeit": "1-0 forfeit",
               "0–1 forfeit": "0-1 forfeit", "0–0 forfeit": "0-0 forfeit"}
    byes = {"half": "Half", "zero": "Zero", "full": "Full"}
    rounds = []
    for m in re.finditer(r"^\| (\d+) \((\d+)\) \| (.*?) \| (.*?) \|$", sec, re.M):
        num, entry = int(m.group(1)), int(m.group(2))
        games = []
        for gm in re.finditer(r"(\w+)–(\w+) ([½01]–[½01](?: forfeit)?)[^()]*\((\d+)\)",
                              m.group(3)):
            g = lr.Game(len(games) + 1, names[gm.group(1)], names[gm.group(2)])
            g.result = results[gm.group(3)]
            g.entry = int(gm.group(4))
            games.append(g)
        pab = None
        absent = []
        if m.group(4) != "none":
            for part in m.group(4).split(";"):
                part = part.strip()
                b = re.fullmatch(r"(\w+) pairing-allocated", part)
                if b:
                    pab = names[b.group(1)]
                    continue
                b = re.fullmatch(r"(\w+) absent, (\w+)", part)
                absent.append((names[b.group(1)], byes[b.group(2)]))
        absent.sort()
        rounds.append(lr.Round(num, entry, absent, games, pab))
    df = {"name": None, "variant": None, "ruleset": "", "time_control": "",
          "system": {"kind": "Swiss", "rounds": len(rounds)}, "players": players,
          "tie_breaks": tie_breaks}
    return df, rounds, pairing_numbers


def main(argv):
    doc = argv[1] if len(argv) > 1 else DOC
    text = open(doc, encoding="utf-8").read()
    B = load_blocks(text)
    t = T()

    # S3: enum tags.
    tags = {}
    for line in B["enum-tags"].splitlines():
        name, rest = line.split(":", 1)
        items = [x.strip().split(" ") for x in rest.split(",")]
        assert [int(i) for i, _ in items] == list(range(len(items)))
        tags[name] = [n for _, n in items]
    t.eq("enum-tags: the reader's tables", lr.ENUMS, tags)

    # The definition.
    dbytes = hexblock(B["definition-bytes"])
    t.eq("definition-bytes: 169 bytes", len(dbytes), 169)
    df = lr.decode_definition_bytes(dbytes)
    want_df = {  # the prose before the block
        "name": "Spec Cup", "variant": "kriegspiel", "ruleset": "kriegspiel/1899-icc",
        "system": {"kind": "Swiss", "rounds": 2},
        "players": [{"key": b"\x11" * 32, "name": "Ann", "rating": 2000},
                    {"key": b"\x22" * 32, "name": "Ben", "rating": None},
                    {"key": b"\x33" * 32, "name": "Cat", "rating": 1500}],
        "tie_breaks": ["Buchholz", "SonnebornBerger", "DirectEncounter"],
        "time_control": "15+10"}
    t.eq("definition-bytes: decode", df, want_df)
    t.eq("definition-bytes: encode", lr.encode_definition_bytes(want_df), dbytes)
    t.eq("definition-bytes: valid", lr.validate_definition(df), None)
    t.eq("definition: initial ranking Ann, Cat, Ben", lr.initial_ranking(df), [0, 2, 1])
    prefix = hexblock(B["definition-signing-prefix"])
    t.eq("definition-signing-prefix", prefix, lr.DEF_SIGNING_PREFIX)
    org = hexblock(B["organiser-key"])
    seed = b"\x07" * 32
    t.eq("organiser-key: public key of seed 07x32", lr.ed25519_public(seed), org)
    sig = hexblock(B["definition-signature"])
    t.eq("definition-signature: Ed25519 sign", lr.ed25519_sign(seed, prefix + dbytes), sig)
    t.true("definition-signature: verify_strict",
           lr.ed25519_verify_strict(org, lr.definition_signing_input(dbytes), sig))
    t.true("definition-signature: refused over other bytes",
           not lr.ed25519_verify_strict(org, lr.definition_signing_input(dbytes + b"\0"), sig))
    bad_s = sig[:32] + (int.from_bytes(sig[32:], "little") + lr._L).to_bytes(32, "little")
    t.true("definition-signature: non-canonical s refused",
           not lr.ed25519_verify_strict(org, lr.definition_signing_input(dbytes), bad_s))
    dfile = hexblock(B["definition-file"])
    t.eq("definition-file: 267 bytes", len(dfile), 267)
    t.eq("definition-file: decode", lr.decode_definition_file(dfile), (dbytes, org, sig))
    tid = hexblock(B["tournament-id"])
    t.eq("tournament-id: SHA-256 of the file", lr.sha256(dfile), tid)
    t.raises("definition-file: trailing byte", lambda: lr.decode_definition_file(dfile + b"\0"))
    t.raises("definition-bytes: version 2", lambda: lr.decode_definition_bytes(b"\x02" + dbytes[1:]))
    t.raises("definition-bytes: unknown variant",
             lambda: lr.decode_definition_bytes(dbytes.replace(b"\x0akriegspiel", b"\x0akriegspiek", 1)))
    # rating Some(2000) = 01 d0 0f; overlong rating 01 d0 8f 00 (same value, one byte more)
    over = dbytes.replace(b"\x01\xd0\x0f", b"\x01\xd0\x8f\x00", 1)
    t.raises("definition-bytes: overlong varint", lambda: lr.decode_definition_bytes(over))
    big = dbytes.replace(b"\x01\xd0\x0f", b"\x01\x80\x80\x04", 1)  # 65536 > u16
    t.raises("definition-bytes: varint above u16", lambda: lr.decode_definition_bytes(big))
    t.raises("definition-bytes: Option tag 02",
             lambda: lr.decode_definition_bytes(dbytes.replace(b"\x01\xd0\x0f", b"\x02\xd0\x0f", 1)))

    # The tournament entry.
    te = hexblock(B["tournament-entry"])
    t.eq("tournament-entry: 117 bytes", len(te), 117)
    body = lr.decode_entry(te)
    t.eq("tournament-entry: decode", body,
         {"kind": "Tournament", "definition_sha256": tid, "organiser": org, "name": "Spec Cup",
          "variant": "kriegspiel", "published_at_ms": 1700000000000})
    t.eq("tournament-leaf", lr.leaf_hash(te), hexblock(B["tournament-leaf"]))
    t.raises("tournament-entry: trailing byte", lambda: lr.decode_entry(te + b"\0"))
    t.raises("tournament-entry: version 1",
             lambda: lr.decode_entry(te[:25] + b"\x01" + te[26:]))
    t.raises("tournament-entry: body index 4", lambda: lr.decode_entry(te[:26] + b"\x04" + te[27:]))
    t.raises("tournament-entry: without the prefix", lambda: lr.decode_entry(te[1:]))

    # The round entry.
    re_ = hexblock(B["round-entry"])
    t.eq("round-entry: 69 bytes", len(re_), 69)
    t.eq("round-entry: decode", lr.decode_entry(re_),
         {"kind": "Round", "tournament": tid, "round": 1,
          "absent": [{"player": 2, "bye": "Half"}], "started_at_ms": 1700000060000})
    t.eq("round-leaf", lr.leaf_hash(re_), hexblock(B["round-leaf"]))

    # The match entry.
    me = hexblock(B["match-entry"])
    t.eq("match-entry: 341 bytes", len(me), 341)
    mbody = {"kind": "Match", "match_id": b"\xa1" * 32, "record_sha256": b"\xb2" * 32,
             "variant": "kriegspiel", "ruleset": "kriegspiel/1899-icc", "white": b"\x11" * 32,
             "black": b"\x22" * 32, "colours_known": True, "umpire": b"\x55" * 32,
             "relay": b"\x66" * 32,
             "verdict": {"kind": "Faults", "faults": [{"kind": "MissingReveal", "role": "Black",
                                                       "culprit": b"\x22" * 32}], "total": 1},
             "result": {"winner": "White", "reason": "Forfeit"}, "rated": True,
             "context": {"tournament": {"tournament": tid, "round": 1},
                         "finished_at_ms": 1700000120000},
             "verifier_version": "0.1.0"}
    t.eq("match-entry: decode", lr.decode_entry(me), mbody)
    t.eq("match-entry: encode", lr.encode_entry(mbody), me)
    t.eq("match-entry: S7 result", lr.match_result(mbody), "1-0 forfeit")
    t.eq("match-leaf", lr.leaf_hash(me), hexblock(B["match-leaf"]))
    # colours_known is the byte after white and black: 25+1+1+32+32+11+20+32+32
    at = 25 + 1 + 1 + 32 + 32 + 11 + 20 + 32 + 32
    t.eq("match-entry: colours_known offset", me[at], 1)
    t.raises("match-entry: bool 02", lambda: lr.decode_entry(me[:at] + b"\x02" + me[at + 1:]))
    # rated is the byte after the result (Some, winner Some White, reason Forfeit): a casual
    # entry decodes with rated false and is not rated (S9).
    rat = len(me) - (1 + 1 + 32 + 1 + 6 + 6)
    t.eq("match-entry: rated offset", me[rat - 4:rat + 1], b"\x01\x01\x00\x0b\x01")
    casual = lr.decode_entry(me[:rat] + b"\x00" + me[rat + 1:])
    t.eq("match-entry: casual decodes", casual["rated"], False)
    t.true("match-entry: a rated forfeit is rated", lr.is_rated(mbody))
    t.true("match-entry: a casual one is not", not lr.is_rated(casual))

    # The no-show entry (in "Entries", prose notation).
    m = re.search(r'"fogproof/v1/ledger-entry\\n" (02 03 aa×32 .*?)\n', text)
    raw = bytearray(lr.ENTRY_PREFIX)
    for tok in m.group(1).split():
        if "×" in tok:
            b, k = tok.split("×")
            raw += bytes.fromhex(b) * int(k)
        else:
            raw += bytes.fromhex(tok)
    ns = {"kind": "NoShow", "tournament": b"\xaa" * 32, "round": 2, "white": b"\x11" * 32,
          "black": b"\x22" * 32, "white_absent": False, "black_absent": True, "deadline_ms": 300}
    t.eq("no-show entry: decode", lr.decode_entry(bytes(raw)), ns)
    t.eq("no-show entry: S7 result", lr.noshow_result(ns), "1-0 forfeit")

    # Merkle: the three entries above as a log of 3, every inclusion proof (self-consistency).
    leaves = [lr.leaf_hash(x) for x in (te, re_, me)]
    root = lr.merkle_root(leaves)
    proofs = {0: [leaves[1], leaves[2]], 1: [leaves[0], leaves[2]],
              2: [lr.node_hash(leaves[0], leaves[1])]}
    for i, p in proofs.items():
        t.true("merkle: inclusion of leaf %d of 3" % i, lr.verify_inclusion(i, 3, leaves[i], p, root))
    t.true("merkle: wrong index refused", not lr.verify_inclusion(1, 3, leaves[0], proofs[0], root))

    # S7's Berger formula against FIDE C.05 Annex 1's table for 6 players (the document has no
    # vector for it; this table is FIDE's, on pairing numbers).
    fide6 = [[(1, 6), (2, 5), (3, 4)], [(6, 4), (5, 3), (1, 2)], [(2, 6), (3, 1), (4, 5)],
             [(6, 5), (1, 4), (2, 3)], [(3, 6), (4, 2), (5, 1)]]
    t.eq("S7 Berger, 6 players (FIDE's table)", [lr.berger_round(6, r)[0] for r in range(1, 6)],
         fide6)
    # 5 players: FIDE's 6-player table with 6 the dummy: its opponent has the bye.
    t.eq("S7 Berger, 5 players (6 the dummy)",
         [lr.berger_round(5, r) for r in range(1, 6)],
         [([g for g in rd if 6 not in g], [x for g in rd if 6 in g for x in g if x != 6][0])
          for rd in fide6])

    # The transcript hash.
    frame = lr.transcript_frame(b"fogproof/v2/match-id", [(b"terms", b"example terms")])
    t.eq("transcript-frame", frame, hexblock(B["transcript-frame"]))
    t.eq("transcript-hash", lr.sha256(frame), hexblock(B["transcript-hash"]))

    # Standings and pairings.
    sdf, rounds, pns = parse_standings_prose(text)
    order = lr.initial_ranking(sdf)
    t.eq("standings: pairing numbers", {sdf["players"][p]["name"]: i + 1 for i, p in enumerate(order)},
         pns)
    st = lr.compute_standings(sdf, rounds)
    outs = lr.round_outcomes(sdf, rounds)
    P = {p: h for p, h, _ in st}
    rows = ["player | half-points | contributions | DE  B  B-1 MB SB W PS"]
    for p, h, tbs in st:
        contribs = [2 * P[o[p][0]] if o[p][0] is not None else 2 * h for o in outs]
        rows.append("%s | %d | %s | %s" % (sdf["players"][p]["name"], h,
                                            " ".join(map(str, contribs)),
                                            " ".join(str(v) for _, v in tbs)))
    t.eq("standings-table", rows, B["standings-table"].splitlines())
    t.eq("standings-json", lr.standings_json(sdf, rounds), B["standings-json"])
    m = re.search(r"tournament id `([0-9a-f]{2})`×32, name `([^`]*)`, variant `([^`]*)`,\s+"
                  r"the tournament entry at leaf (\d+)", text)
    sdf["name"], sdf["variant"] = m.group(2), m.group(3)
    t.eq("pairings-json", lr.pairings_json(sdf, bytes.fromhex(m.group(1)) * 32, rounds,
                                           int(m.group(4))),
         B["pairings-json"])

    # The rating update.
    A, Bk, C = b"\x0a" * 32, b"\x0b" * 32, b"\x0c" * 32

    def game(w, b, winner):
        return {"result": {"winner": winner, "reason": "Checkmate"}, "rated": True,
                "variant": "chess", "white": w, "black": b}
    for math_kind in ("libm", "platform"):
        lr.MATH = math_kind
        table = lr.rate_games([game(A, Bk, "White")])
        states = {"A1": table[("chess", A)], "B1": table[("chess", Bk)]}
        lr.rate_games([game(C, A, None)], table)
        # A casual game between the same players changes nothing (S9).
        before = dict(table)
        lr.rate_games([dict(game(A, C, "White"), rated=False)], table)
        t.eq("rating: a casual game is not rated (%s)" % math_kind, table, before)
        states["A2"], states["C2"] = table[("chess", A)], table[("chess", C)]
        lines = B["rating-vector"].splitlines()[1:]
        for i in range(0, len(lines), 2):
            f = lines[i].split()
            bits = lines[i + 1].split()[1:]
            r, d, v, g = states[f[0]]
            got = [lr.fmt_double(r), lr.fmt_double(d), lr.fmt_double(v), str(g),
                   "true" if d > 110.0 else "false"]
            t.eq("rating-vector %s (%s): text" % (f[0], math_kind), got, f[1:])
            t.eq("rating-vector %s (%s): bits" % (f[0], math_kind),
                 [struct.pack(">d", x).hex() for x in (r, d, v)], bits)
    lr.MATH = "libm"

    # The rating update that tells libm from glibc: only S9's libm transcription must agree.
    table = lr.rate_games([game(A, Bk, None)])
    states = {"A1": table[("chess", A)], "B1": table[("chess", Bk)]}
    lr.rate_games([game(A, Bk, "White")], table)
    states["A2"], states["B2"] = table[("chess", A)], table[("chess", Bk)]
    lines = B["rating-vector-libm"].splitlines()[1:]
    for i in range(0, len(lines), 2):
        f = lines[i].split()
        bits = lines[i + 1].split()[1:]
        r, d, v, g = states[f[0]]
        got = [lr.fmt_double(r), lr.fmt_double(d), lr.fmt_double(v), str(g),
               "true" if d > 110.0 else "false"]
        t.eq("rating-vector-libm %s: text" % f[0], got, f[1:])
        t.eq("rating-vector-libm %s: bits" % f[0],
             [struct.pack(">d", x).hex() for x in (r, d, v)], bits)

    # Doubles in JSON.
    for line in B["json-numbers"].splitlines():
        v, want = [x.strip() for x in line.split("->")]
        t.eq("json-numbers %s" % v, lr.fmt_double(float(v)), want)

    print("%d passed, %d failed" % (t.passed, t.failed))
    return 0 if t.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
