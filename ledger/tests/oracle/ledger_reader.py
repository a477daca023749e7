#!/usr/bin/env python3
"""An independent reader of fogproof tournament bundles.

Written from docs/LEDGER.md ("Specification for an independent reader", S1 to S10, and the
test-vector appendix) and the C2SP specifications it cites (signed-note, tlog-checkpoint,
tlog-cosignature, tlog-proof), without reading fogproof's code. Python 3.11: the standard
library, and the `cryptography` package (PyPI) for the Ed25519 signature equation
(`python3 -m pip install --user cryptography`).

Usage:
    python3 ledger_reader.py BUNDLE_DIR --log-key VKEY [--witness VKEY]... [--quorum K]
                             [--math libm|platform]

--math picks S9's exp and ln: a transcription of the libm crate's (default) or Python's math.

What it checks: the checkpoint under the policy (the log's Ed25519 note signature, witness
cosignatures up to the quorum); the definition (strict decoding, validity, the organiser's
signature, its SHA-256 against the tournament entry); every proofs/<index>.tlog-proof (its name,
its checkpoint's text, the inclusion of its entry's leaf hash, strict decoding of the entry);
every record's SHA-256 against its name and every match entry's record being present; that
every entry pairings.json names has a valid proof; the replay (S6, S7); and pairings.json,
standings.json and ratings.json recomputed byte for byte. tournament.trf is not specified and
not checked. For a Swiss, whose pairings (FIDE Dutch) this reader does not compute, a round's
games and pairing-allocated bye are taken from pairings.json (S7 allows it) and only checked
for consistency.

Prints one line per check (PASS/FAIL), then "N passed, M failed"; exits 0 only if every check
passed.
"""

import base64
import hashlib
import math
import os
import struct
import sys

# ---------------------------------------------------------------------------------------------
# Ed25519 (RFC 8032), verification with the checks of ed25519-dalek's verify_strict as S5
# describes them: canonical s, canonical point encodings, small-order A and R refused, then the
# signature equation. The equation itself is the `cryptography` package's (OpenSSL's) Ed25519:
# the project takes its crypto primitives from well-kept libraries; the strictness checks before
# it are this reader's own, on the bytes.
# ---------------------------------------------------------------------------------------------

from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # noqa: E402
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493

# The encodings of the eight points of small order (the torsion subgroup), with y < p: the
# identity, the point of order 2, two of order 4 and four of order 8 (RFC 8032 curve; the list
# every Ed25519 library uses to refuse "weak" keys). Each also with the sign bit flipped: for
# the points with x = 0 (y = 1, y = p - 1) that is a non-canonical encoding of the same point,
# for the others the encoding of its negation, also of small order.
_SMALL_ORDER_CANONICAL = [
    bytes.fromhex(h) for h in (
        "0100000000000000000000000000000000000000000000000000000000000000",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    )
]
_SMALL_ORDER = frozenset(
    [b for b in _SMALL_ORDER_CANONICAL]
    + [b[:31] + bytes([b[31] ^ 0x80]) for b in _SMALL_ORDER_CANONICAL]
)


def _canonical_point(b):
    """The encoding's y (bit 255 is x's sign) is below p."""
    return len(b) == 32 and (int.from_bytes(b, "little") & ((1 << 255) - 1)) < _P


def ed25519_public(seed):
    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()


def ed25519_sign(seed, msg):
    return Ed25519PrivateKey.from_private_bytes(seed).sign(msg)


def ed25519_verify_strict(pub, msg, sig):
    if len(pub) != 32 or len(sig) != 64:
        return False
    rb = sig[:32]
    s = int.from_bytes(sig[32:], "little")
    if s >= _L:
        return False
    if not _canonical_point(pub) or not _canonical_point(rb):
        return False
    if pub in _SMALL_ORDER or rb in _SMALL_ORDER:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg)
    except (InvalidSignature, ValueError):
        return False
    return True


# ---------------------------------------------------------------------------------------------
# S1: postcard, strict
# ---------------------------------------------------------------------------------------------


class DecodeError(Exception):
    pass


class Dec:
    def __init__(self, data):
        self.b = bytes(data)
        self.i = 0

    def byte(self):
        if self.i >= len(self.b):
            raise DecodeError("unexpected end of input at byte %d" % self.i)
        c = self.b[self.i]
        self.i += 1
        return c

    def take(self, n):
        if self.i + n > len(self.b):
            raise DecodeError("unexpected end of input at byte %d (need %d)" % (self.i, n))
        out = self.b[self.i:self.i + n]
        self.i += n
        return out

    def varint(self, bits):
        start = self.i
        value = 0
        shift = 0
        n = 0
        maxbytes = (bits + 6) // 7
        while True:
            if n == maxbytes:
                raise DecodeError("varint at byte %d longer than a u%d" % (start, bits))
            c = self.byte()
            n += 1
            value |= (c & 0x7F) << shift
            shift += 7
            if not c & 0x80:
                if c == 0 and n > 1:
                    raise DecodeError("overlong varint at byte %d" % start)
                break
        if value >> bits:
            raise DecodeError("varint at byte %d above u%d's maximum" % (start, bits))
        return value

    def u8(self):
        return self.byte()

    def u16(self):
        return self.varint(16)

    def u32(self):
        return self.varint(32)

    def u64(self):
        return self.varint(64)

    def boolean(self):
        at = self.i
        c = self.byte()
        if c > 1:
            raise DecodeError("bool byte %02x at byte %d" % (c, at))
        return c == 1

    def option(self, f):
        at = self.i
        c = self.byte()
        if c == 0:
            return None
        if c == 1:
            return f()
        raise DecodeError("Option tag %02x at byte %d" % (c, at))

    def bytes32(self):
        return self.take(32)

    def string(self):
        n = self.varint(64)
        raw = self.take(n)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError("invalid UTF-8 in a String at byte %d" % (self.i - n))

    def vec(self, f):
        n = self.varint(64)
        if n > len(self.b) - self.i:
            raise DecodeError("sequence length %d beyond the input" % n)
        return [f() for _ in range(n)]

    def byte_vec(self):
        n = self.varint(64)
        return self.take(n)

    def enum(self, table):
        at = self.i
        idx = self.varint(32)
        if idx >= len(table):
            raise DecodeError("enum index %d at byte %d not in the table (%d variants)"
                              % (idx, at, len(table)))
        return table[idx]

    def end(self):
        if self.i != len(self.b):
            raise DecodeError("%d trailing bytes at byte %d" % (len(self.b) - self.i, self.i))


class Enc:
    def __init__(self):
        self.out = bytearray()

    def varint(self, v):
        while True:
            c = v & 0x7F
            v >>= 7
            if v:
                self.out.append(c | 0x80)
            else:
                self.out.append(c)
                return

    def u8(self, v):
        self.out.append(v)

    def boolean(self, v):
        self.out.append(1 if v else 0)

    def raw(self, b):
        self.out += b

    def string(self, s):
        b = s.encode("utf-8")
        self.varint(len(b))
        self.out += b

    def byte_vec(self, b):
        self.varint(len(b))
        self.out += b

    def option(self, v, f):
        if v is None:
            self.out.append(0)
        else:
            self.out.append(1)
            f(v)

    def vec(self, items, f):
        self.varint(len(items))
        for it in items:
            f(it)

    def enum(self, table, name):
        self.varint(table.index(name))


# ---------------------------------------------------------------------------------------------
# S3: enum tags
# ---------------------------------------------------------------------------------------------

ENUMS = {
    "EntryBody": ["Match", "Tournament", "Round", "NoShow"],
    "EntryVerdict": ["Valid", "Faults"],
    "System": ["RoundRobin", "Swiss"],
    "TieBreak": ["Buchholz", "BuchholzCut1", "MedianBuchholz", "SonnebornBerger",
                 "DirectEncounter", "Wins", "ProgressiveScore"],
    "ByeKind": ["PairingAllocated", "Half", "Zero", "Full"],
    "Color": ["White", "Black"],
    "EndReason": ["Checkmate", "Stalemate", "Repetition", "FiftyMove", "InsufficientMaterial",
                  "KingCaptured", "Score", "TieBreak", "Resignation", "Agreement", "Timeout",
                  "Forfeit", "Abandonment"],
    "MatchRole": ["White", "Black", "Umpire", "Relay", "Record"],
    "FaultKind": ["MalformedRecord", "TruncatedRecord", "BadTerms", "BadSignature", "WrongMatch",
                  "NonCanonical", "BadReceipt", "BrokenChain", "Equivocation", "BadOpening",
                  "DuplicateCommitment", "BadSetup", "IllegalAction", "FalseAdjudication",
                  "FalseAnnouncement", "FalseInformerAnswer", "MissingReveal", "Timeout",
                  "FalseClaim", "BadDisclosure", "NotAllowed", "DroppedMessage"],
}

VARIANTS = ["chess", "kriegspiel", "sic", "intrigue", "secretchess6", "espionage"]

# ---------------------------------------------------------------------------------------------
# S2: hashes
# ---------------------------------------------------------------------------------------------


def sha256(b):
    return hashlib.sha256(b).digest()


def leaf_hash(entry):
    return sha256(b"\x00" + entry)


def node_hash(left, right):
    return sha256(b"\x01" + left + right)


def merkle_root(leaves):
    """Root of a list of leaf hashes (RFC 6962)."""
    n = len(leaves)
    if n == 0:
        return sha256(b"")
    if n == 1:
        return leaves[0]
    k = 1
    while k * 2 < n:
        k *= 2
    return node_hash(merkle_root(leaves[:k]), merkle_root(leaves[k:]))


def verify_inclusion(index, size, leaf, proof, root):
    """RFC 9162 2.1.3.2, as S2 writes it."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while True:
                    fn >>= 1
                    sn >>= 1
                    if fn & 1 or fn == 0:
                        break
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def lp(x):
    return struct.pack("<Q", len(x)) + x


def transcript_frame(tag, fields):
    out = lp(tag)
    for label, value in fields:
        out += lp(label) + lp(value)
    return out


def transcript_hash(tag, fields):
    return sha256(transcript_frame(tag, fields))


# ---------------------------------------------------------------------------------------------
# S4: entries
# ---------------------------------------------------------------------------------------------

ENTRY_PREFIX = b"fogproof/v1/ledger-entry\n"
ENTRY_MAX = 65535
# S6, Entries: a match entry may close at most this many ms before the latest one replayed.
CLOSE_TIME_TOLERANCE_MS = 600000


def _dec_fault(d):
    return {"kind": d.enum(ENUMS["FaultKind"]), "role": d.enum(ENUMS["MatchRole"]),
            "culprit": d.option(d.bytes32)}


def _dec_verdict(d):
    v = d.enum(ENUMS["EntryVerdict"])
    if v == "Valid":
        return {"kind": "Valid"}
    faults = d.vec(lambda: _dec_fault(d))
    if len(faults) > 16:
        raise DecodeError("more than 16 faults")
    return {"kind": "Faults", "faults": faults, "total": d.u32()}


def _dec_result(d):
    return {"winner": d.option(lambda: d.enum(ENUMS["Color"])),
            "reason": d.enum(ENUMS["EndReason"])}


def _dec_body(d):
    kind = d.enum(ENUMS["EntryBody"])
    if kind == "Match":
        e = {"kind": kind}
        e["match_id"] = d.bytes32()
        e["record_sha256"] = d.bytes32()
        e["variant"] = d.string()
        e["ruleset"] = d.string()
        e["white"] = d.bytes32()
        e["black"] = d.bytes32()
        e["colours_known"] = d.boolean()
        e["umpire"] = d.option(d.bytes32)
        e["relay"] = d.bytes32()
        e["verdict"] = _dec_verdict(d)
        e["result"] = d.option(lambda: _dec_result(d))
        e["rated"] = d.boolean()
        tr = d.option(lambda: {"tournament": d.bytes32(), "round": d.u32()})
        e["context"] = {"tournament": tr, "finished_at_ms": d.u64()}
        e["verifier_version"] = d.string()
        return e
    if kind == "Tournament":
        return {"kind": kind, "definition_sha256": d.bytes32(), "organiser": d.bytes32(),
                "name": d.string(), "variant": d.string(), "published_at_ms": d.u64()}
    if kind == "Round":
        e = {"kind": kind, "tournament": d.bytes32(), "round": d.u32()}
        e["absent"] = d.vec(lambda: {"player": d.u32(), "bye": d.enum(ENUMS["ByeKind"])})
        e["started_at_ms"] = d.u64()
        return e
    return {"kind": kind, "tournament": d.bytes32(), "round": d.u32(), "white": d.bytes32(),
            "black": d.bytes32(), "white_absent": d.boolean(), "black_absent": d.boolean(),
            "deadline_ms": d.u64()}


def encode_entry(e):
    w = Enc()
    w.raw(ENTRY_PREFIX)
    w.u8(2)
    w.enum(ENUMS["EntryBody"], e["kind"])
    k = e["kind"]
    if k == "Match":
        w.raw(e["match_id"])
        w.raw(e["record_sha256"])
        w.string(e["variant"])
        w.string(e["ruleset"])
        w.raw(e["white"])
        w.raw(e["black"])
        w.boolean(e["colours_known"])
        w.option(e["umpire"], w.raw)
        w.raw(e["relay"])
        v = e["verdict"]
        w.enum(ENUMS["EntryVerdict"], v["kind"])
        if v["kind"] == "Faults":
            def fault(f):
                w.enum(ENUMS["FaultKind"], f["kind"])
                w.enum(ENUMS["MatchRole"], f["role"])
                w.option(f["culprit"], w.raw)
            w.vec(v["faults"], fault)
            w.varint(v["total"])

        def result(r):
            w.option(r["winner"], lambda c: w.enum(ENUMS["Color"], c))
            w.enum(ENUMS["EndReason"], r["reason"])
        w.option(e["result"], result)
        w.boolean(e["rated"])

        def tround(t):
            w.raw(t["tournament"])
            w.varint(t["round"])
        w.option(e["context"]["tournament"], tround)
        w.varint(e["context"]["finished_at_ms"])
        w.string(e["verifier_version"])
    elif k == "Tournament":
        w.raw(e["definition_sha256"])
        w.raw(e["organiser"])
        w.string(e["name"])
        w.string(e["variant"])
        w.varint(e["published_at_ms"])
    elif k == "Round":
        w.raw(e["tournament"])
        w.varint(e["round"])

        def absence(a):
            w.varint(a["player"])
            w.enum(ENUMS["ByeKind"], a["bye"])
        w.vec(e["absent"], absence)
        w.varint(e["started_at_ms"])
    else:
        w.raw(e["tournament"])
        w.varint(e["round"])
        w.raw(e["white"])
        w.raw(e["black"])
        w.boolean(e["white_absent"])
        w.boolean(e["black_absent"])
        w.varint(e["deadline_ms"])
    return bytes(w.out)


def decode_entry(data):
    """S4: strict decoding of entry bytes; returns the body as a dict."""
    data = bytes(data)
    if len(data) > ENTRY_MAX:
        raise DecodeError("entry of %d bytes, over 65,535" % len(data))
    if not data.startswith(ENTRY_PREFIX):
        raise DecodeError("entry does not start with %r" % ENTRY_PREFIX)
    d = Dec(data[len(ENTRY_PREFIX):])
    version = d.u8()
    if version != 2:
        raise DecodeError("entry version %d, not 2" % version)
    body = _dec_body(d)
    d.end()
    if encode_entry(body) != data:
        raise DecodeError("re-encoding the entry does not give back its bytes")
    return body


# ---------------------------------------------------------------------------------------------
# S5: definitions
# ---------------------------------------------------------------------------------------------

DEF_SIGNING_PREFIX = struct.pack(">I", 33) + b"fogproof/v1/tournament-definition"
DEF_FILE_MAX = 1048576


def decode_definition_bytes(data):
    data = bytes(data)
    d = Dec(data)
    v = d.u8()
    if v != 1:
        raise DecodeError("definition version %d, not 1" % v)
    df = {"name": d.string()}
    variant = d.string()
    if variant not in VARIANTS:
        raise DecodeError("unknown variant id %r" % variant)
    df["variant"] = variant
    df["ruleset"] = d.string()
    system = d.enum(ENUMS["System"])
    if system == "RoundRobin":
        df["system"] = {"kind": system, "double": d.boolean()}
    else:
        df["system"] = {"kind": system, "rounds": d.u32()}
    df["players"] = d.vec(lambda: {"key": d.bytes32(), "name": d.string(),
                                   "rating": d.option(d.u16)})
    df["tie_breaks"] = d.vec(lambda: d.enum(ENUMS["TieBreak"]))
    df["time_control"] = d.string()
    d.end()
    if encode_definition_bytes(df) != data:
        raise DecodeError("re-encoding the definition does not give back its bytes")
    return df


def encode_definition_bytes(df):
    w = Enc()
    w.u8(1)
    w.string(df["name"])
    w.string(df["variant"])
    w.string(df["ruleset"])
    s = df["system"]
    w.enum(ENUMS["System"], s["kind"])
    if s["kind"] == "RoundRobin":
        w.boolean(s["double"])
    else:
        w.varint(s["rounds"])

    def player(p):
        w.raw(p["key"])
        w.string(p["name"])
        w.option(p["rating"], w.varint)
    w.vec(df["players"], player)
    w.vec(df["tie_breaks"], lambda t: w.enum(ENUMS["TieBreak"], t))
    w.string(df["time_control"])
    return bytes(w.out)


def validate_definition(df):
    """S5: returns None or the reason the definition is not valid."""
    n = len(df["players"])
    if not 2 <= n <= 1000:
        return "%d players (2 to 1,000 allowed)" % n
    keys = [p["key"] for p in df["players"]]
    if len(set(keys)) != n:
        return "a key appears twice"
    s = df["system"]
    if s["kind"] == "Swiss" and not 1 <= s["rounds"] < n:
        return "a Swiss of %d rounds with %d players" % (s["rounds"], n)
    if len(set(df["tie_breaks"])) != len(df["tie_breaks"]):
        return "a tie-break appears twice"
    return None


def total_rounds(df):
    s = df["system"]
    if s["kind"] == "Swiss":
        return s["rounds"]
    n = len(df["players"])
    per = n - 1 if n % 2 == 0 else n
    return per * 2 if s["double"] else per


def decode_definition_file(data):
    """S5: the signed definition file; returns (definition bytes, organiser, signature)."""
    data = bytes(data)
    if len(data) > DEF_FILE_MAX:
        raise DecodeError("definition file over 1,048,576 bytes")
    d = Dec(data)
    b = d.byte_vec()
    org = d.bytes32()
    sig = d.take(64)
    d.end()
    enc = Enc()
    enc.byte_vec(b)
    if bytes(enc.out) + org + sig != data:
        raise DecodeError("re-encoding the definition file does not give back its bytes")
    return b, org, sig


def definition_signing_input(def_bytes):
    return DEF_SIGNING_PREFIX + def_bytes


def initial_ranking(df):
    """S5: list of player indices, pairing number 1 first."""
    players = df["players"]
    rated = [i for i, p in enumerate(players) if p["rating"] is not None]
    unrated = [i for i, p in enumerate(players) if p["rating"] is None]
    rated.sort(key=lambda i: (-players[i]["rating"], i))
    return rated + unrated


# ---------------------------------------------------------------------------------------------
# S7: results and the Berger tables
# ---------------------------------------------------------------------------------------------

# result string -> (white half-points, black half-points, played)
RESULTS = {
    "1-0": (2, 0, True),
    "0-1": (0, 2, True),
    "1/2-1/2": (1, 1, True),
    "1-0 forfeit": (2, 0, False),
    "0-1 forfeit": (0, 2, False),
    "0-0 forfeit": (0, 0, False),
}
BYE_POINTS = {"PairingAllocated": 2, "Full": 2, "Half": 1, "Zero": 0}


def match_result(entry):
    r = entry["result"]
    if r is None:
        return "0-0 forfeit"
    if r["winner"] is None:
        return "1/2-1/2"
    if r["reason"] == "Forfeit":
        return "1-0 forfeit" if r["winner"] == "White" else "0-1 forfeit"
    return "1-0" if r["winner"] == "White" else "0-1"


def noshow_result(entry):
    if entry["white_absent"] and entry["black_absent"]:
        return "0-0 forfeit"
    return "0-1 forfeit" if entry["white_absent"] else "1-0 forfeit"


def berger_round(n, r):
    """S7: round r (from 1, within one cycle) of a Berger table for n players, on pairing
    numbers. Returns ([(white, black), ...] in board order without the dummy's game,
    the pairing number that meets the dummy or None)."""
    m = n + (n % 2)
    mod = m - 1

    def wrap(x):
        x %= mod
        return mod if x == 0 else x
    p = None
    for cand in range(1, m):
        if (2 * cand - (r + 1)) % mod == 0:
            p = cand
            break
    boards = [(p, m) if r % 2 == 1 else (m, p)]
    for k in range(2, m // 2 + 1):
        boards.append((wrap(p + (k - 1)), wrap(p - (k - 1))))
    dummy = m if n % 2 else None
    games = []
    bye = None
    for w, b in boards:
        if dummy is not None and dummy in (w, b):
            bye = b if w == dummy else w
            continue
        games.append((w, b))
    return games, bye


def round_robin_pairings(df, rnd):
    """Games as (white index, black index) and the pairing-allocated bye (index or None)."""
    n = len(df["players"])
    per = n - 1 if n % 2 == 0 else n
    order = initial_ranking(df)
    cyc = (rnd - 1) // per
    r = (rnd - 1) % per + 1
    games, bye = berger_round(n, r)
    out = []
    for w, b in games:
        if cyc % 2 == 1:
            w, b = b, w
        out.append((order[w - 1], order[b - 1]))
    return out, (order[bye - 1] if bye is not None else None)


# ---------------------------------------------------------------------------------------------
# Rounds: the replayed state
# ---------------------------------------------------------------------------------------------


class Game:
    def __init__(self, board, white, black):
        self.board = board
        self.white = white
        self.black = black
        self.result = None
        self.entry = None


class Round:
    def __init__(self, number, entry, absent, games, pab):
        self.number = number
        self.entry = entry
        self.absent = absent  # [(player index, ByeKind name)], round entry order
        self.games = games  # [Game], board order
        self.pab = pab  # player index or None

    def complete(self):
        return all(g.result is not None for g in self.games)


# ---------------------------------------------------------------------------------------------
# S8: standings
# ---------------------------------------------------------------------------------------------


class StandingsError(Exception):
    pass


def round_outcomes(df, rounds):
    """For each completed round, {player: (opponent or None, half-points)} for every player."""
    n = len(df["players"])
    out = []
    for rd in rounds:
        if not rd.complete():
            continue
        o = {}

        def put(p, v, rd=rd, o=o):
            if not 0 <= p < n:
                raise StandingsError("round %d names player %d, not in the definition"
                                     % (rd.number, p))
            if p in o:
                raise StandingsError("round %d names player %d twice" % (rd.number, p))
            o[p] = v
        in_games = set()
        for g in rd.games:
            hw, hb, played = RESULTS[g.result]
            put(g.white, (g.black if played else None, hw))
            put(g.black, (g.white if played else None, hb))
            in_games.add(g.white)
            in_games.add(g.black)
        if rd.pab is not None:
            put(rd.pab, (None, BYE_POINTS["PairingAllocated"]))
        for p, bye in rd.absent:
            if p in in_games:
                continue
            put(p, (None, BYE_POINTS[bye]))
        for p in range(n):
            if p not in o:
                o[p] = (None, 0)
        out.append(o)
    return out


def compute_standings(df, rounds):
    """Returns a list of (player index, half-points, [(tie-break name, value)]) first place
    first, or raises StandingsError."""
    n = len(df["players"])
    outs = round_outcomes(df, rounds)
    P = [sum(o[p][1] for o in outs) for p in range(n)]
    pn = {p: i + 1 for i, p in enumerate(initial_ranking(df))}
    values = {p: [] for p in range(n)}
    for tb in df["tie_breaks"]:
        for p in range(n):
            contribs = [2 * P[o[p][0]] if o[p][0] is not None else 2 * P[p] for o in outs]
            if tb == "Buchholz":
                v = sum(contribs)
            elif tb == "BuchholzCut1":
                v = sum(contribs) - min(contribs) if contribs else 0
            elif tb == "MedianBuchholz":
                v = sum(contribs)
                if len(contribs) >= 3:
                    v -= max(contribs) + min(contribs)
            elif tb == "SonnebornBerger":
                v = sum(P[o[p][0]] * o[p][1] for o in outs if o[p][0] is not None)
            elif tb == "Wins":
                v = sum(1 for o in outs if o[p][0] is not None and o[p][1] == 2)
            elif tb == "ProgressiveScore":
                v, acc = 0, 0
                for o in outs:
                    acc += o[p][1]
                    v += 2 * acc
            elif tb == "DirectEncounter":
                v = None  # below, needs the group
            else:
                raise AssertionError(tb)
            values[p].append(v)
        if tb == "DirectEncounter":
            k = len(values[0]) - 1
            groups = {}
            for p in range(n):
                groups.setdefault((P[p], tuple(values[p][:k])), []).append(p)
            for members in groups.values():
                for p in members:
                    values[p][k] = 0
                if len(members) < 2:
                    continue
                met = set()
                for o in outs:
                    for p in members:
                        q = o[p][0]
                        if q is not None:
                            met.add((p, q))
                if not all((a, b) in met for a in members for b in members if a != b):
                    continue
                ms = set(members)
                for p in members:
                    values[p][k] = 2 * sum(o[p][1] for o in outs
                                           if o[p][0] is not None and o[p][0] in ms)
    order = sorted(range(n), key=lambda p: ([-P[p]] + [-v for v in values[p]], pn[p]))
    return [(p, P[p], list(zip(df["tie_breaks"], values[p]))) for p in order]


# ---------------------------------------------------------------------------------------------
# S9: ratings
# ---------------------------------------------------------------------------------------------

SCALE = 173.7178
TAU = 0.75
EPS = 0.000001
PI = 3.141592653589793
INITIAL = (1500.0, 500.0, 0.09, 0)


# `exp` and `ln` (S9): the document names the Rust `libm` crate 0.2.16 ("FreeBSD msun's e_exp.c
# and e_log.c"). Below is a transcription of that crate's exp.rs and log.rs (read from its
# published source, cited by the document; these are musl's versions of the msun functions:
# exp is msun's algorithm, log is musl's rewrite of e_log.c, whose last steps differ from
# FreeBSD's). MATH = "platform" uses Python's math.exp / math.log instead.
MATH = "libm"

_HALF = (0.5, -0.5)
_LN2HI = 6.93147180369123816490e-01
_LN2LO = 1.90821492927058770002e-10
_INVLN2 = 1.44269504088896338700e+00
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01


def _bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _from_bits(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def libm_exp(x):
    hx = _bits(x) >> 32
    sign = hx >> 31
    hx &= 0x7FFFFFFF
    if hx >= 0x4086232B:
        if x != x:
            return x
        if x > 709.782712893383973096:
            return math.inf
        if x < -745.13321910194110842:
            return 0.0
    if hx > 0x3FD62E42:
        if hx >= 0x3FF0A2B2:
            k = int(_INVLN2 * x + _HALF[sign])
        else:
            k = 1 - sign - sign
        hi = x - float(k) * _LN2HI
        lo = float(k) * _LN2LO
        x = hi - lo
    elif hx > 0x3E300000:
        k = 0
        hi = x
        lo = 0.0
    else:
        return 1.0 + x
    xx = x * x
    c = x - xx * (_P1 + xx * (_P2 + xx * (_P3 + xx * (_P4 + xx * _P5))))
    y = 1.0 + (x * c / (2.0 - c) - lo + hi)
    return y if k == 0 else math.ldexp(y, k)


def libm_log(x):
    ui = _bits(x)
    hx = ui >> 32
    k = 0
    if hx < 0x00100000 or hx >> 31:
        if (ui << 1) & 0xFFFFFFFFFFFFFFFF == 0:
            return -math.inf
        if hx >> 31:
            return math.nan
        k -= 54
        x *= 18014398509481984.0
        ui = _bits(x)
        hx = ui >> 32
    elif hx >= 0x7FF00000:
        return x
    elif hx == 0x3FF00000 and ui & 0xFFFFFFFF == 0:
        return 0.0
    hx += 0x3FF00000 - 0x3FE6A09E
    k += (hx >> 20) - 0x3FF
    hx = (hx & 0x000FFFFF) + 0x3FE6A09E
    x = _from_bits((hx << 32) | (ui & 0xFFFFFFFF))
    f = x - 1.0
    hfsq = 0.5 * f * f
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    r = t2 + t1
    dk = float(k)
    return s * (hfsq + r) + dk * _LN2LO - hfsq + f + dk * _LN2HI



def _exp(x):
    return libm_exp(x) if MATH == "libm" else math.exp(x)


def _ln(x):
    return libm_log(x) if MATH == "libm" else math.log(x)


def _volatility(sigma, delta2, phi2, v):
    a0 = _ln(sigma * sigma)

    def f(x):
        ex = _exp(x)
        y = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (y * y)) - (x - a0) / (TAU * TAU)
    a = a0
    if delta2 > phi2 + v:
        b = _ln(delta2 - phi2 - v)
    else:
        k = 1.0
        i = 0
        while f(a - k * TAU) < 0.0 and i < 1000:
            k = k + 1.0
            i = i + 1
        b = a - k * TAU
    fa = f(a)
    fb = f(b)
    i = 0
    while abs(b - a) > EPS and i < 1000:
        c = a + (a - b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0.0:
            a = b
            fa = fb
        else:
            fa = fa / 2.0
        b = c
        fb = fc
        i = i + 1
    return _exp(a / 2.0)


def glicko_update(me, opp, s):
    """me, opp: (rating, deviation, volatility, games)."""
    mu = (me[0] - 1500.0) / SCALE
    phi = me[1] / SCALE
    mu_j = (opp[0] - 1500.0) / SCALE
    phi_j = opp[1] / SCALE
    g_j = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / (PI * PI))
    e = 1.0 / (1.0 + _exp(-g_j * (mu - mu_j)))
    v = 1.0 / (g_j * g_j * e * (1.0 - e))
    delta = v * g_j * (s - e)
    sigma = _volatility(me[2], delta * delta, phi * phi, v)
    phi_s = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_s * phi_s) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * g_j * (s - e)
    deviation = min(max(phi_new * SCALE, 45.0), 500.0)
    rating = mu_new * SCALE + 1500.0
    return (rating, deviation, sigma, me[3] + 1)


def is_rated(entry):
    return (entry["rated"] and entry["result"] is not None
            and entry["variant"] in VARIANTS and entry["white"] != entry["black"])


def rate_games(match_entries, table=None):
    """S9: match entries, in the order given -> {(variant, key): state}."""
    table = {} if table is None else table
    for e in match_entries:
        if not is_rated(e):
            continue
        w = e["result"]["winner"]
        s = 0.5 if w is None else (1.0 if w == "White" else 0.0)
        kw, kb = (e["variant"], e["white"]), (e["variant"], e["black"])
        W = table.get(kw, INITIAL)
        B = table.get(kb, INITIAL)
        table[kw] = glicko_update(W, B, s)
        table[kb] = glicko_update(B, W, 1.0 - s)
    return table


# ---------------------------------------------------------------------------------------------
# S6: JSON, serde_json's pretty printer
# ---------------------------------------------------------------------------------------------


class Double(float):
    """A float written as serde_json writes a double."""


def fmt_double(x):
    if x != x or x in (float("inf"), float("-inf")):
        return "null"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    r = repr(abs(x))
    if "e" in r:
        mant, e = r.split("e")
        e = int(e)
    else:
        mant, e = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = ip + fp
    pos = len(ip) + e  # value = 0.digits * 10^pos
    z = len(digits) - len(digits.lstrip("0"))
    digits = digits[z:].rstrip("0")
    pos -= z
    if not digits:
        return sign + "0.0"
    exp10 = pos - 1
    if -5 <= exp10 <= 15:
        if pos <= 0:
            body = "0." + "0" * (-pos) + digits
        elif pos >= len(digits):
            body = digits + "0" * (pos - len(digits)) + ".0"
        else:
            body = digits[:pos] + "." + digits[pos:]
    else:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        body += ("e-%d" % -exp10) if exp10 < 0 else ("e+%d" % exp10)
    return sign + body


_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
        "\t": "\\t"}


def json_string(s):
    out = ['"']
    for ch in s:
        if ch in _ESC:
            out.append(_ESC[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _json(v, indent):
    pad = "  " * (indent + 1)
    end = "  " * indent
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, Double):
        return fmt_double(float(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt_double(v)
    if isinstance(v, str):
        return json_string(v)
    if isinstance(v, (list, tuple)):
        if not v:
            return "[]"
        return "[\n" + ",\n".join(pad + _json(x, indent + 1) for x in v) + "\n" + end + "]"
    if isinstance(v, dict):
        if not v:
            return "{}"
        keys = sorted(v, key=lambda k: k.encode("utf-8"))
        return ("{\n" + ",\n".join(pad + json_string(k) + ": " + _json(v[k], indent + 1)
                                   for k in keys) + "\n" + end + "}")
    raise TypeError(type(v))


def to_json(v):
    return _json(v, 0) + "\n"


def player_json(df, i):
    p = df["players"][i]
    return {"index": i, "key": "ed25519:" + p["key"].hex(), "name": p["name"]}


def points_str(half):
    return str(half // 2) + (".5" if half % 2 else "")


BYE_JSON = {"Zero": "zero", "Half": "half", "Full": "full"}


def pairings_json(df, tid, rounds, tournament_entry):
    out_rounds = []
    for rd in rounds:
        out_rounds.append({
            "absent": [{"bye": BYE_JSON[b], "player": player_json(df, p)} for p, b in rd.absent],
            "entry": rd.entry,
            "games": [{"black": player_json(df, g.black), "board": g.board, "entry": g.entry,
                       "result": g.result if g.result is not None else "*",
                       "white": player_json(df, g.white)} for g in rd.games],
            "pairing_allocated_bye": player_json(df, rd.pab) if rd.pab is not None else None,
            "round": rd.number,
        })
    return to_json({"entry": tournament_entry, "name": df["name"], "rounds": out_rounds,
                    "tournament": tid.hex(), "variant": df["variant"]})


def standings_json(df, rounds):
    try:
        st = compute_standings(df, rounds)
    except StandingsError as e:
        # S6 gives {"error": text} without specifying the text (a gap of the document).
        return to_json({"error": str(e)})
    return to_json([{"player": player_json(df, p), "points": points_str(h), "rank": i + 1,
                     "tie_breaks": [{"name": n, "value": v} for n, v in tbs]}
                    for i, (p, h, tbs) in enumerate(st)])


def rating_order(match_entries):
    """S9: by close time (context.finished_at_ms), equal ones by match id (bytes)."""
    return sorted(match_entries, key=lambda e: (e["context"]["finished_at_ms"], e["match_id"]))


def ratings_json(df, match_entries):
    table = rate_games(rating_order(match_entries))
    out = []
    for i, p in enumerate(df["players"]):
        r, dv, vol, games = table.get((df["variant"], p["key"]), INITIAL)
        out.append({"deviation": Double(dv), "games": games, "player": player_json(df, i),
                    "provisional": dv > 110.0, "rating": Double(r), "volatility": Double(vol)})
    return to_json(out)


# ---------------------------------------------------------------------------------------------
# Notes, keys, checkpoints, tlog proofs (C2SP)
# ---------------------------------------------------------------------------------------------

EM_DASH = "\u2014"


class NoteError(Exception):
    pass


def key_id(name, sig_type, pub):
    return sha256(name.encode() + b"\n" + bytes([sig_type]) + pub)[:4]


def parse_vkey(vkey):
    parts = vkey.strip().split("+", 2)
    if len(parts) != 3:
        raise ValueError("a vkey is name+hex(key id)+base64(type || key)")
    name, kid, b = parts
    raw = base64.b64decode(b, validate=True)
    if len(raw) != 33:
        raise ValueError("vkey key material is not 1 + 32 bytes")
    t, pub = raw[0], raw[1:]
    if bytes.fromhex(kid) != key_id(name, t, pub):
        raise ValueError("vkey's key id does not match its name and key")
    return {"name": name, "id": bytes.fromhex(kid), "type": t, "pub": pub}


def parse_note(data):
    """Returns (text bytes, [(name, sig bytes)])."""
    try:
        s = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NoteError("note is not UTF-8")
    if any(ord(c) < 0x20 and c != "\n" for c in s):
        raise NoteError("note holds a control character")
    idx = data.rfind(b"\n\n")
    if idx < 0:
        raise NoteError("note has no blank line before its signatures")
    text = data[:idx + 1]
    sigs = data[idx + 2:]
    if not sigs.endswith(b"\n"):
        raise NoteError("last signature line does not end with a newline")
    out = []
    for line in sigs[:-1].split(b"\n"):
        ln = line.decode("utf-8")
        if not ln.startswith(EM_DASH + " "):
            raise NoteError("signature line does not start with an em dash: %r" % ln)
        rest = ln[2:].split(" ")
        if len(rest) != 2 or not rest[0]:
            raise NoteError("malformed signature line %r" % ln)
        try:
            sig = base64.b64decode(rest[1], validate=True)
        except Exception:
            raise NoteError("signature line %r is not base64" % ln)
        if len(sig) < 4:
            raise NoteError("signature shorter than its key id")
        out.append((rest[0], sig))
    if not out:
        raise NoteError("note has no signature")
    return text, out


def verify_checkpoint(data, log_key, witnesses, quorum):
    """Returns (origin, size, root, note text) or raises NoteError."""
    text, sigs = parse_note(data)
    log_ok = False
    cosigned = set()
    for name, sig in sigs:
        kid = sig[:4]
        if name == log_key["name"] and kid == log_key["id"]:
            if len(sig) != 68 or not ed25519_verify_strict(log_key["pub"], text, sig[4:]):
                raise NoteError("the log's signature does not verify")
            log_ok = True
            continue
        for w in witnesses:
            if name == w["name"] and kid == w["id"]:
                if len(sig) != 4 + 8 + 64:
                    raise NoteError("witness %s: cosignature of the wrong length" % name)
                t = struct.unpack(">Q", sig[4:12])[0]
                msg = b"cosignature/v1\ntime " + str(t).encode() + b"\n" + text
                if not ed25519_verify_strict(w["pub"], msg, sig[12:]):
                    raise NoteError("witness %s: cosignature does not verify" % name)
                cosigned.add(name)
    if not log_ok:
        raise NoteError("no signature by the log's key")
    if len(cosigned) < quorum:
        raise NoteError("%d witness cosignatures, quorum %d" % (len(cosigned), quorum))
    lines = text.decode("utf-8").split("\n")[:-1]
    if len(lines) < 3:
        raise NoteError("checkpoint text has fewer than 3 lines")
    origin, size_s, root_s = lines[0], lines[1], lines[2]
    if origin != log_key["name"]:
        raise NoteError("checkpoint origin %r is not the log key's name" % origin)
    if not size_s.isdigit() or (size_s != "0" and size_s.startswith("0")):
        raise NoteError("checkpoint size %r is not canonical decimal" % size_s)
    root = base64.b64decode(root_s, validate=True)
    if len(root) != 32:
        raise NoteError("checkpoint root is not 32 bytes")
    return origin, int(size_s), root, text


def parse_tlog_proof(data):
    """Returns (extra bytes or None, index, [hashes], checkpoint bytes)."""
    head = b"c2sp.org/tlog-proof@v1\n"
    if not data.startswith(head):
        raise NoteError("does not start with c2sp.org/tlog-proof@v1")
    rest = data[len(head):]
    sep = rest.find(b"\n\n")
    if sep < 0:
        raise NoteError("no empty line before the checkpoint")
    lines = rest[:sep].decode("ascii").split("\n")
    ckpt = rest[sep + 2:]
    extra = None
    if lines and lines[0].startswith("extra "):
        extra = base64.b64decode(lines[0][6:], validate=True)
        lines = lines[1:]
    if not lines or not lines[0].startswith("index "):
        raise NoteError("no index line")
    idx_s = lines[0][6:]
    if not idx_s.isdigit() or (idx_s != "0" and idx_s.startswith("0")):
        raise NoteError("index %r is not canonical decimal" % idx_s)
    hashes = []
    for ln in lines[1:]:
        h = base64.b64decode(ln, validate=True)
        if len(h) != 32:
            raise NoteError("a proof hash is not 32 bytes")
        hashes.append(h)
    return extra, int(idx_s), hashes, ckpt


# ---------------------------------------------------------------------------------------------
# The bundle check
# ---------------------------------------------------------------------------------------------


class Report:
    def __init__(self, out=sys.stdout):
        self.passed = 0
        self.failed = 0
        self.out = out

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("PASS %s" % what, file=self.out)
        else:
            self.failed += 1
            print("FAIL %s%s" % (what, ": " + detail if detail else ""), file=self.out)
        return ok


def first_difference(name, want, got):
    """Names the first differing place of two byte strings: line, column, both lines."""
    if want == got:
        return None
    wl = want.split(b"\n")
    gl = got.split(b"\n")
    for i in range(max(len(wl), len(gl))):
        a = wl[i] if i < len(wl) else None
        b = gl[i] if i < len(gl) else None
        if a != b:
            if a is None or b is None:
                return "%s: line %d: recomputed %r, bundle %r" % (name, i + 1, a, b)
            col = next((j for j in range(min(len(a), len(b))) if a[j] != b[j]),
                       min(len(a), len(b)))
            return "%s: first difference at line %d, column %d: recomputed %r, bundle %r" % (
                name, i + 1, col + 1, a.decode("utf-8", "replace"), b.decode("utf-8", "replace"))
    return "%s differs" % name


def read(path):
    with open(path, "rb") as f:
        return f.read()


def check_bundle(bdir, log_key, witnesses, quorum, rep, swiss_fallback=True):
    # 1. The checkpoint under the policy.
    try:
        ck_bytes = read(os.path.join(bdir, "checkpoint"))
        origin, size, root, ck_text = verify_checkpoint(ck_bytes, log_key, witnesses, quorum)
        rep.check(True, "checkpoint: signed by %s (size %d)" % (origin, size))
    except (OSError, NoteError, ValueError) as e:
        rep.check(False, "checkpoint", str(e))
        return

    # 2. The definition file, its signature; the tournament id.
    try:
        def_file = read(os.path.join(bdir, "definition"))
        def_bytes, organiser, def_sig = decode_definition_file(def_file)
        df = decode_definition_bytes(def_bytes)
        rep.check(True, "definition: decodes (%r, %s, %d players)"
                  % (df["name"], df["variant"], len(df["players"])))
    except (OSError, DecodeError) as e:
        rep.check(False, "definition: decodes", str(e))
        return
    tid = sha256(def_file)
    rep.check(ed25519_verify_strict(organiser, definition_signing_input(def_bytes), def_sig),
              "definition: organiser's signature", "does not verify")
    bad = validate_definition(df)
    rep.check(bad is None, "definition: valid", bad or "")

    # 3. Every proof: file name, checkpoint, inclusion, entry decoding.
    pdir = os.path.join(bdir, "proofs")
    entries = {}
    names = sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []
    rep.check(bool(names), "proofs: present", "no proofs/ files")
    for fn in names:
        path = "proofs/" + fn
        try:
            extra, index, hashes, ck = parse_tlog_proof(read(os.path.join(pdir, fn)))
        except (NoteError, ValueError, UnicodeDecodeError) as e:
            rep.check(False, path, "malformed tlog-proof: %s" % e)
            continue
        ok = rep.check(fn == "%d.tlog-proof" % index, "%s: file name is its index" % path,
                       "index line says %d" % index)
        try:
            ck_t = parse_note(ck)[0]
        except NoteError as e:
            ck_t = None
        ok &= rep.check(ck_t == ck_text, "%s: its checkpoint is the bundle's" % path,
                        "checkpoint text differs from checkpoint")
        if extra is None:
            rep.check(False, "%s: extra" % path, "no extra line (the entry bytes)")
            continue
        ok &= rep.check(verify_inclusion(index, size, leaf_hash(extra), hashes, root),
                        "%s: entry hash included at leaf %d" % (path, index),
                        "inclusion proof does not verify against the checkpoint")
        try:
            body = decode_entry(extra)
            rep.check(True, "%s: entry decodes (%s)" % (path, body["kind"]))
        except DecodeError as e:
            rep.check(False, "%s: entry decodes" % path, str(e))
            continue
        if ok and index not in entries:
            entries[index] = body

    # 3b. Every leaf index the bundle's pairings.json names has its proof (a deleted proof is
    # named here, and not only through the derived files that then differ).
    named = _entries_named_in_pairings_json(bdir)
    missing = sorted(i for i in named if i not in entries)
    rep.check(not missing, "proofs: every entry named in pairings.json has a valid proof",
              ", ".join("proofs/%d.tlog-proof missing or invalid" % i for i in missing))

    # 4. Records: every file hashes to its name, every match entry's record is present.
    rdir = os.path.join(bdir, "records")
    rnames = sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []
    for fn in rnames:
        rep.check(sha256(read(os.path.join(rdir, fn))).hex() == fn,
                  "records/%s: SHA-256 is its name" % fn, "hash differs")
    for idx in sorted(entries):
        e = entries[idx]
        if e["kind"] == "Match":
            h = e["record_sha256"].hex()
            rep.check(h in rnames, "records/%s: present for entry %d" % (h, idx), "missing")

    # 5. Replay.
    rounds, match_entries, problems = replay(df, tid, organiser, entries, bdir, rep)
    if problems:
        # The first problem; the rest usually follow from it (a round left incomplete...).
        more = len(problems) - 1
        rep.check(False, "replay", problems[0] + (" (and %d more: %s)" % (
            more, "; ".join(problems[1:4]) + ("; ..." if more > 3 else "")) if more else ""))
    if not problems:
        rep.check(True, "replay: %d entries, %d rounds" % (len(entries), len(rounds)))

    # 6. The derived files.
    want = {
        "pairings.json": pairings_json(df, tid, rounds, min(entries)).encode("utf-8"),
        "standings.json": standings_json(df, rounds).encode("utf-8"),
        "ratings.json": ratings_json(df, match_entries).encode("utf-8"),
    }
    for name, w in want.items():
        try:
            got = read(os.path.join(bdir, name))
        except OSError as e:
            rep.check(False, name, "cannot read: %s" % e)
            continue
        diff = first_difference(name, w, got)
        rep.check(diff is None, "%s: recomputed byte for byte" % name, diff or "")
    print("SKIP tournament.trf: not specified byte for byte by docs/LEDGER.md (S6)",
          file=rep.out)


def _entries_named_in_pairings_json(bdir):
    import json
    named = set()
    try:
        pj = json.loads(read(os.path.join(bdir, "pairings.json")))
        for r in pj["rounds"]:
            named.add(r["entry"])
            for g in r["games"]:
                if g["entry"] is not None:
                    named.add(g["entry"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return {i for i in named if isinstance(i, int)}


def _swiss_round_from_pairings_json(df, bdir, number):
    """S6/S7: a reader without the Dutch system takes a Swiss round's games and
    pairing-allocated bye from pairings.json."""
    import json
    try:
        pj = json.loads(read(os.path.join(bdir, "pairings.json")))
        for r in pj["rounds"]:
            if r["round"] == number:
                games = [(g["white"]["index"], g["black"]["index"]) for g in r["games"]]
                pab = r["pairing_allocated_bye"]
                return games, (pab["index"] if pab is not None else None)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def replay(df, tid, organiser, entries, bdir, rep):
    problems = []
    rounds = []
    match_entries = []
    keys = [p["key"] for p in df["players"]]
    n = len(keys)
    idxs = sorted(entries)
    if not idxs:
        return rounds, match_entries, ["no entries"]
    first = entries[idxs[0]]
    if first["kind"] != "Tournament":
        return rounds, match_entries, ["entry %d, the first, is not the tournament entry"
                                       % idxs[0]]
    if first["definition_sha256"] != tid:
        problems.append("definition: SHA-256 %s is not the tournament entry's %s"
                        % (tid.hex(), first["definition_sha256"].hex()))
    if first["organiser"] != organiser:
        problems.append("definition: organiser differs from the tournament entry's")
    if first["name"] != df["name"] or first["variant"] != df["variant"]:
        problems.append("definition: name or variant differs from the tournament entry's")
    rep.check(not problems, "definition: its SHA-256 is the tournament id of entry %d"
              % idxs[0], "; ".join(problems))
    problems = []
    seen_match = set()
    latest_close = None
    limit = total_rounds(df)
    for idx in idxs[1:]:
        e = entries[idx]
        k = e["kind"]
        if k == "Tournament":
            problems.append("entry %d: a second tournament entry" % idx)
            continue
        if k == "Round":
            if e["tournament"] != tid:
                problems.append("entry %d: round of another tournament" % idx)
                continue
            if e["round"] != len(rounds) + 1 or e["round"] > limit:
                problems.append("entry %d: round %d out of sequence" % (idx, e["round"]))
                continue
            if rounds and not rounds[-1].complete():
                problems.append("entry %d: round %d starts before round %d is complete"
                                % (idx, e["round"], rounds[-1].number))
                continue
            ab = [a["player"] for a in e["absent"]]
            if ab != sorted(set(ab)) or any(p >= n for p in ab) or any(
                    a["bye"] == "PairingAllocated" for a in e["absent"]):
                problems.append("entry %d: bad absences" % idx)
                continue
            absent = [(a["player"], a["bye"]) for a in e["absent"]]
            if df["system"]["kind"] == "RoundRobin":
                pairs, pab = round_robin_pairings(df, e["round"])
            else:
                got = _swiss_round_from_pairings_json(df, bdir, e["round"])
                if got is None:
                    problems.append("entry %d: Swiss round %d not in pairings.json (this reader "
                                    "does not implement the Dutch system)" % (idx, e["round"]))
                    continue
                pairs, pab = got
                # What this reader can check of a Swiss round it cannot pair: every player not
                # absent is paired once or has the pairing-allocated bye, which exists only for
                # an odd number of players present; absent players are not paired (S7).
                aset = {p for p, _ in absent}
                present = [p for p in range(n) if p not in aset]
                seen = [x for g in pairs for x in g] + ([pab] if pab is not None else [])
                if (sorted(seen) != present
                        or (pab is not None) != (len(present) % 2 == 1)):
                    problems.append("entry %d: Swiss round %d in pairings.json does not pair "
                                    "every present player once" % (idx, e["round"]))
                    continue
            games = [Game(i + 1, w, b) for i, (w, b) in enumerate(pairs)]
            rd = Round(e["round"], idx, absent, games, pab)
            if df["system"]["kind"] == "RoundRobin":
                aset = {p for p, _ in absent}
                for g in games:
                    wa, ba = g.white in aset, g.black in aset
                    if wa or ba:
                        g.result = ("0-0 forfeit" if wa and ba
                                    else "0-1 forfeit" if wa else "1-0 forfeit")
                        g.entry = idx
            rounds.append(rd)
            continue
        if k == "Match":
            tr = e["context"]["tournament"]
            if tr is None or tr["tournament"] != tid:
                problems.append("entry %d: a match not of this tournament" % idx)
                continue
            if e["match_id"] in seen_match:
                problems.append("entry %d: match id appears twice" % idx)
                continue
            seen_match.add(e["match_id"])
            close = e["context"]["finished_at_ms"]
            if latest_close is not None and close + CLOSE_TIME_TOLERANCE_MS < latest_close:
                problems.append("entry %d: close time %d ms is more than %d ms before %d ms"
                                % (idx, close, CLOSE_TIME_TOLERANCE_MS, latest_close))
                continue
            rnum = tr["round"]
            white, black = e["white"], e["black"]
        else:
            if e["tournament"] != tid:
                problems.append("entry %d: a no-show of another tournament" % idx)
                continue
            if not (e["white_absent"] or e["black_absent"]):
                problems.append("entry %d: a no-show with both present" % idx)
                continue
            rnum = e["round"]
            white, black = e["white"], e["black"]
        if not 1 <= rnum <= len(rounds):
            problems.append("entry %d: names round %d, not started" % (idx, rnum))
            continue
        game = None
        for g in rounds[rnum - 1].games:
            if keys[g.white] == white and keys[g.black] == black and g.result is None:
                game = g
                break
        if game is None:
            problems.append("entry %d: not a pairing of round %d without a result, in its "
                            "colours" % (idx, rnum))
            continue
        if k == "Match":
            if e["variant"] != df["variant"] or not e["colours_known"]:
                problems.append("entry %d: variant or colours do not fit the tournament" % idx)
                continue
            game.result = match_result(e)
            match_entries.append(e)
            close = e["context"]["finished_at_ms"]
            latest_close = close if latest_close is None else max(latest_close, close)
        else:
            game.result = noshow_result(e)
        game.entry = idx
    return rounds, match_entries, problems


def main(argv):
    global MATH
    args = list(argv[1:])
    bdir = None
    log_vkey = None
    wit = []
    quorum = None
    while args:
        a = args.pop(0)
        if a == "--log-key":
            log_vkey = args.pop(0)
        elif a == "--witness":
            wit.append(args.pop(0))
        elif a == "--quorum":
            quorum = int(args.pop(0))
        elif a == "--math":
            MATH = args.pop(0)
            if MATH not in ("libm", "platform"):
                print("--math is libm or platform", file=sys.stderr)
                return 2
        elif bdir is None:
            bdir = a
        else:
            print("usage: ledger_reader.py BUNDLE_DIR --log-key VKEY [--witness VKEY]... "
                  "[--quorum K]", file=sys.stderr)
            return 2
    if bdir is None or log_vkey is None:
        print("usage: ledger_reader.py BUNDLE_DIR --log-key VKEY [--witness VKEY]... "
              "[--quorum K]", file=sys.stderr)
        return 2
    log_key = parse_vkey(log_vkey)
    if log_key["type"] != 0x01:
        print("the log key is not an Ed25519 (type 0x01) vkey", file=sys.stderr)
        return 2
    witnesses = [parse_vkey(w) for w in wit]
    if any(w["type"] != 0x04 for w in witnesses):
        print("a witness key is not a cosignature (type 0x04) vkey", file=sys.stderr)
        return 2
    rep = Report()
    check_bundle(bdir, log_key, witnesses, len(witnesses) if quorum is None else quorum, rep)
    print("%d passed, %d failed" % (rep.passed, rep.failed))
    return 0 if rep.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
