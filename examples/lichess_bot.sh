#!/bin/bash
# Plays one chess game between lichess-bot (https://github.com/lichess-bot-devs/lichess-bot,
# unmodified, with Debian's stockfish) and examples/berserk_bot.py, both through fogproof agents
# on a local `fogproof serve`: lichess-bot's agent is challenged, accepts, plays, and its record
# is verified. lichess-bot is AGPL-3.0 and not on PyPI, so CI does not run this; the routes it
# calls are tested by cli/tests/berserk.rs (cli/tests/data/lichess_bridge.py).
#
#   examples/lichess_bot.sh PATH/TO/lichess-bot [PATH/TO/fogproof]
# needs: pip install -r PATH/TO/lichess-bot/requirements.txt berserk==0.14.0; /usr/games/stockfish
set -eu
LB=$(cd "$1" && pwd); BIN=$(realpath "${2:-target/release/fogproof}")
HERE=$(cd "$(dirname "$0")" && pwd); W=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$W"' EXIT
url() { for _ in $(seq 150); do grep -q "$2" "$1" && break; sleep 0.2; done; grep "$2" "$1" | grep -o "http://[^ ]*" | head -1; }
FOGPROOF_LOG=warn "$BIN" serve --data "$W/data" --listen 127.0.0.1:0 --no-ledger > "$W/serve" 2>/dev/null &
SRV=$(url "$W/serve" "listening on")
"$BIN" keys new --out "$W/a.key" >/dev/null; "$BIN" keys new --out "$W/b.key" >/dev/null
FOGPROOF_LOG=warn "$BIN" agent --server "$SRV" --key "$W/a.key" --dir "$W/a" --listen 127.0.0.1:0 > "$W/a.out" 2>/dev/null &
FOGPROOF_LOG=warn "$BIN" agent --server "$SRV" --key "$W/b.key" --dir "$W/b" --listen 127.0.0.1:0 > "$W/b.out" 2>/dev/null &
A=$(url "$W/a.out" "local bot API"); B=$(url "$W/b.out" "local bot API")
AKEY=$(python3 -c "import json,sys,urllib.request; print(json.load(urllib.request.urlopen('$A/api/account'))['id'])")
python3 - "$LB/config.yml.default" "$W/config.yml" "$A/" <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
c["token"], c["url"] = "local", sys.argv[3]
e = c["engine"]
e.update(dir="/usr/games/", name="stockfish", ponder=False)
e["uci_options"] = {"Move Overhead": 100, "Threads": 1, "Hash": 16}
e["polyglot"]["enabled"] = False
c["matchmaking"]["allow_matchmaking"] = False
yaml.safe_dump(c, open(sys.argv[2], "w"), sort_keys=False)
PY
(cd "$LB" && python3 lichess-bot.py --config "$W/config.yml" > "$W/lichess-bot.log" 2>&1) &
sleep 8
python3 "$HERE/berserk_bot.py" --api "$B" --vs "$AKEY" --time 5+0 --seed 5
sleep 2
"$BIN" verify "$W"/a/*.rec
