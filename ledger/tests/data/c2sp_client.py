"""A second, independent C2SP client for ledger/tests/c2sp_client.rs: Python and OpenSSL's
Ed25519 (the `cryptography` package), written from the C2SP texts alone, sharing no code with the
Rust crate.

    python3 c2sp_client.py LOG_DIR PROOF_FILE LOG_VKEY QUORUM [WITNESS_VKEY ...]

From the directory alone it checks the checkpoint (signed-note: the log's Ed25519 signature,
type 0x01; tlog-cosignature: timestamped witness cosignatures, type 0x04, at least QUORUM of
them), reads every entry bundle and hash tile of tlog-tiles, re-hashes entries into level-0 tiles
and full tiles into the level above (RFC 6962), recomputes the root, then checks the tlog-proof
file (the entry in its extra line, the inclusion proof, the same checkpoint). Prints one line
starting with OK, or FAIL and the reason (exit status 1). Entry bundles may be stored gzipped (as
a log serves them with `Content-Encoding: gzip`): they are inflated, as an HTTP client would.
"""

import base64
import gzip
import hashlib
import os
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def fail(why):
    print("FAIL " + why)
    sys.exit(1)


def sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()


def leaf(e):
    return sha(b"\x00", e)


def node(l, r):
    return sha(b"\x01", l, r)


def mth(hashes):
    if len(hashes) == 1:
        return hashes[0]
    k = 1
    while k * 2 < len(hashes):
        k *= 2
    return node(mth(hashes[:k]), mth(hashes[k:]))


def vkey(text):
    name, kid, material = text.split("+", 2)
    raw = base64.b64decode(material, validate=True)
    kind, pub = raw[0], raw[1:]
    if sha(name.encode(), b"\n", bytes([kind]), pub)[:4].hex() != kid:
        fail("key id of " + text)
    return name, bytes.fromhex(kid), kind, Ed25519PublicKey.from_public_bytes(pub)


def note(data):
    text = data.decode("utf-8")
    i = text.rindex("\n\n")
    body, sigs = text[: i + 1], text[i + 2 :]
    out = []
    for line in sigs.rstrip("\n").split("\n"):
        if not line.startswith("\u2014 "):
            fail("signature line " + line)
        name, b64 = line[2:].split(" ")
        out.append((name, base64.b64decode(b64, validate=True)))
    return body, out


def check_checkpoint(data, log, witnesses, quorum):
    body, sigs = note(data)
    lname, lid, lkind, lkey = log
    if lkind != 1:
        fail("log key type")
    ok_log = False
    cosigned = set()
    for name, raw in sigs:
        if name == lname and raw[:4] == lid:
            lkey.verify(raw[4:], body.encode())  # raises on a bad signature
            ok_log = True
        for wname, wid, wkind, wkey in witnesses:
            if name == wname and raw[:4] == wid and wkind == 4:
                t = int.from_bytes(raw[4:12], "big")
                wkey.verify(raw[12:], ("cosignature/v1\ntime %d\n" % t).encode() + body.encode())
                cosigned.add(wname)
    if not ok_log:
        fail("no log signature")
    if len(cosigned) < quorum:
        fail("%d cosignatures, quorum %d" % (len(cosigned), quorum))
    origin, size, root = body.rstrip("\n").split("\n")[:3]
    if origin != lname or str(int(size)) != size:
        fail("checkpoint text")
    return body, int(size), base64.b64decode(root, validate=True), len(cosigned)


def index_path(n):
    groups = ["%03d" % (n % 1000)]
    while n >= 1000:
        n //= 1000
        groups.append("x%03d" % (n % 1000))
    return "/".join(reversed(groups))


def tile_file(d, what, n, width):
    p = os.path.join(d, "tile", what, index_path(n))
    if width < 256:
        p += ".p/%d" % width
    with open(p, "rb") as f:
        return f.read()


def root_from_tiles(d, size):
    # Level 0: entries hash into the level-0 tiles.
    hashes = []
    for n in range((size + 255) // 256):
        width = min(256, size - 256 * n)
        bundle = tile_file(d, "entries", n, width)
        if bundle[:2] == b"\x1f\x8b":
            bundle = gzip.decompress(bundle)
        entries, at = [], 0
        while at < len(bundle):
            ln = int.from_bytes(bundle[at : at + 2], "big")
            entries.append(bundle[at + 2 : at + 2 + ln])
            at += 2 + ln
        tile = tile_file(d, "0", n, width)
        if len(entries) != width or [leaf(e) for e in entries] != [tile[i : i + 32] for i in range(0, len(tile), 32)]:
            fail("tile 0/%d" % n)
        hashes.extend(leaf(e) for e in entries)
    # Levels above: every hash is the MTH of a full tile below.
    below, level = hashes, 0
    while len(below) >= 256:
        above = [mth(below[i : i + 256]) for i in range(0, len(below) - 255, 256)]
        level += 1
        for n in range((len(above) + 255) // 256):
            width = min(256, len(above) - 256 * n)
            tile = tile_file(d, str(level), n, width)
            if [tile[i : i + 32] for i in range(0, len(tile), 32)] != above[256 * n : 256 * n + width]:
                fail("tile %d/%d" % (level, n))
        below = above
    if size == 0:
        return hashlib.sha256(b"").digest()
    return mth(hashes)


def check_proof(data, body, size, root):
    text = data.decode("utf-8")
    head, cp = text.split("\n\n", 1)
    lines = head.split("\n")
    if lines[0] != "c2sp.org/tlog-proof@v1" or not lines[1].startswith("extra ") or not lines[2].startswith("index "):
        fail("tlog-proof header")
    entry = base64.b64decode(lines[1][6:], validate=True)
    index = int(lines[2][6:])
    proof = [base64.b64decode(l, validate=True) for l in lines[3:]]
    if note(cp.encode())[0] != body:
        fail("the proof's checkpoint is not the log's")
    # RFC 9162, 2.1.3.2.
    fn, sn, r = index, size - 1, leaf(entry)
    for p in proof:
        if sn == 0:
            fail("proof too long")
        if fn % 2 == 1 or fn == sn:
            r = node(p, r)
            while fn % 2 == 0 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0 or r != root:
        fail("inclusion proof")
    return index


def main():
    d, proof_file, log_vkey, quorum = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    witnesses = [vkey(w) for w in sys.argv[5:]]
    with open(os.path.join(d, "checkpoint"), "rb") as f:
        body, size, root, cosigned = check_checkpoint(f.read(), vkey(log_vkey), witnesses, quorum)
    if root_from_tiles(d, size) != root:
        fail("the tiles do not give the checkpoint's root")
    with open(proof_file, "rb") as f:
        index = check_proof(f.read(), body, size, root)
    print("OK size %d, %d cosignature(s), entry %d proven" % (size, cosigned, index))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a failed signature check raises InvalidSignature
        fail("%s: %s" % (type(e).__name__, e))
