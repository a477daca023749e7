#!/usr/bin/env python3
"""A fogproof bot in a few dozen lines of standard-library Python.

It talks to a player's agent (`fogproof agent --server URL --key FILE --listen 127.0.0.1:8765`),
which holds the key and speaks the protocol; the bot only sees its own view and what is asked
(docs/SERVER.md, "The local bot API"). It challenges (`--vs bot|open|KEY`) or accepts the first
challenge it is offered (`--vs accept`), then plays one whole game picking at random among the
moves (or Kriegspiel attempts) it is given, and prints the result and the record's path.
"""
import argparse, json, random, urllib.error, urllib.request

def call(api, path, body=None):
    req = urllib.request.Request(api + path, method="POST", data=json.dumps(body or {}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)

def get(api, path):
    with urllib.request.urlopen(api + path) as r:
        return json.load(r)

def lines(response):
    for line in response:
        if line.strip():
            yield json.loads(line)

def answer(api, gid, state, ask, rng):
    kind, files = ask["kind"], "abcdefgh"
    if kind in ("move", "attempt"):
        call(api, f"/api/bot/game/{gid}/move/{rng.choice(ask['moves'])}")
    elif kind == "intrigue-setup":
        rank = "2" if state["side"] == "white" else "7"
        call(api, f"/api/bot/game/{gid}/setup", {"king": rng.choice(files) + rng.choice("12345678"),
                                                 "informer": rng.choice(files) + rank})
    elif kind in ("secretchess6-setup", "secretchess6-tiebreak"):
        formation = "".join(rng.sample("KQRBN1", 6))
        call(api, f"/api/bot/game/{gid}/" + ("setup" if kind.endswith("setup") else "tiebreak"),
             {"formation": formation})

def play(api, gid, rng):
    answered = None
    with urllib.request.urlopen(f"{api}/api/bot/game/stream/{gid}") as stream:
        for state in lines(stream):
            state = state.get("state", state)  # gameFull carries the first gameState
            if state["stage"] == "finished":
                return state
            ask = state.get("ask")
            if ask and ask["id"] != answered:
                answered = ask["id"]
                try:
                    answer(api, gid, state, ask, rng)
                except urllib.error.HTTPError as e:  # e.g. the game ended meanwhile
                    print("refused:", e.read().decode())

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--api", default="http://127.0.0.1:8765")
    p.add_argument("--vs", default="bot", help="bot, open, a key, or 'accept'")
    p.add_argument("--variant", default="kriegspiel")
    p.add_argument("--time", default="5+3", help="minutes+increment seconds")
    p.add_argument("--seed", type=int)
    a = p.parse_args()
    rng = random.Random(a.seed)
    me = get(a.api, "/api/account")["id"]
    with urllib.request.urlopen(a.api + "/api/stream/event") as events:
        if a.vs != "accept":
            minutes, increment = a.time.split("+")
            c = call(a.api, "/api/challenge/" + a.vs, {"variant": a.variant,
                     "clock_limit": int(minutes) * 60, "clock_increment": int(increment)})
            print("challenge", c["challenge"]["id"], flush=True)
        for e in lines(events):
            c = e.get("challenge", {})
            if a.vs == "accept" and e["type"] == "challenge" and c["challenger"]["id"] != me:
                call(a.api, f"/api/challenge/{e['challenge']['id']}/accept")
            elif e["type"] == "gameStart":
                end = play(a.api, e["game"]["id"], rng)
                print("game", e["game"]["id"], end["result"], end["reason"], "record", end["record"])
                return

if __name__ == "__main__":
    main()
