"""What lichess-bot calls besides playing, asked of an agent after a finished chess game
(cli/tests/berserk.rs): the token test, the BOT title and upgrade, the games in progress, chat,
the PGN export (replayed by python-chess) and the online bots.

    python3 lichess_bridge.py API GAME_ID PLIES STATUS RESULT
"""
import io
import json
import sys

import chess.pgn
import requests

api, game, plies, status, result = sys.argv[1:6]
account = requests.get(api + "/api/account").json()
assert account["title"] == "BOT", account
tokens = requests.post(api + "/api/token/test", data="t1,t2").json()
assert sorted(tokens) == ["t1", "t2"], tokens
assert "bot:play" in tokens["t1"]["scopes"].split(","), tokens
assert tokens["t1"]["userId"] == account["id"], tokens
assert requests.post(api + "/api/bot/account/upgrade").ok
assert requests.post(f"{api}/api/bot/game/{game}/chat", data={"room": "player", "text": "gg"}).ok
missing = requests.post(f"{api}/api/bot/game/{'0' * 64}/chat", data={"text": "gg"})
assert missing.status_code == 404, missing.status_code
# The game is over: nothing is being played.
assert requests.get(api + "/api/account/playing").json()["nowPlaying"] == []
pgn = requests.get(f"{api}/game/export/{game}")
assert pgn.headers["content-type"].startswith("application/x-chess-pgn"), pgn.headers
parsed = chess.pgn.read_game(io.StringIO(pgn.text))
assert not parsed.errors, parsed.errors
moves = list(parsed.mainline_moves())
assert len(moves) == int(plies), (len(moves), plies, pgn.text)
assert parsed.headers["Result"] == result, (parsed.headers, result)
if status == "mate":
    assert parsed.end().board().is_checkmate(), pgn.text
online = [json.loads(line) for line in requests.get(api + "/api/bot/online").text.splitlines() if line]
assert [b["id"] for b in online] == [account["bot"]], online
assert all(b["title"] == "BOT" for b in online), online
print("bridge ok", len(moves))
