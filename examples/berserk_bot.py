#!/usr/bin/env python3
"""A lichess bot written with berserk (lichess's Python client) and python-chess, pointed at a
fogproof agent's local API instead of lichess.org: it uses only lichess's fields (the event
stream's gameStart, gameFull's white/black/initialFen/variant, gameState's moves, clocks and
status), so the same code plays on lichess.

    fogproof agent --server https://HOST --key me.key        # prints its local bot API
    python3 examples/berserk_bot.py --api http://127.0.0.1:8765 --vs bot

It challenges the opponent (`bot`: the server's house bot, or a key) to chess, plays random legal
moves (preferring captures and checks) until the game ends, then prints one line:
`game ID STATUS WINNER MOVES`.
"""
import argparse
import random
import sys

import berserk
import chess


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--api", required=True, help="the agent's local bot API, http://127.0.0.1:PORT")
    p.add_argument("--vs", default="bot", help="bot (the server's house bot) or a key")
    p.add_argument("--time", default="10+0", help="minutes+increment seconds")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    client = berserk.Client(base_url=a.api)
    me = client.account.get()["id"]
    minutes, inc = a.time.split("+")
    opponent = client.account.get()["bot"] if a.vs == "bot" else a.vs
    events = client.bots.stream_incoming_events()
    client.challenges.create(opponent, rated=False, clock_limit=int(minutes) * 60,
                             clock_increment=int(inc), color="white", variant="standard")
    game_id = None
    for event in events:
        if event["type"] == "gameStart":
            game_id = event["game"]["gameId"]
            break
    colour = None
    moved_at = -1
    state = None
    for event in client.bots.stream_game_state(game_id):
        if event["type"] == "gameFull":
            assert event["variant"]["key"] == "standard", event["variant"]
            assert event["initialFen"] == "startpos", event["initialFen"]
            colour = "white" if event["white"]["id"] == me else "black"
            assert event[colour]["id"] == me
            state = event["state"]
        elif event["type"] == "gameState":
            state = event
        else:
            continue
        if state["status"] != "started":
            break
        moves = state["moves"].split()
        board = chess.Board()
        for m in moves:
            board.push_uci(m)
        mine = board.turn == (colour == "white")
        if mine and moved_at != len(moves):
            legal = list(board.legal_moves)
            sharp = [m for m in legal if board.is_capture(m) or board.gives_check(m)]
            move = rng.choice(sharp if sharp and rng.random() < 0.7 else legal)
            client.bots.make_move(game_id, move.uci())
            moved_at = len(moves)
    moves = state["moves"].split()
    print("game", game_id, state["status"], state.get("winner") or "none", len(moves))
    # Every move replays legally from the start: the moves string is the game.
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    if state["status"] == "mate":
        assert board.is_checkmate(), board.fen()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
