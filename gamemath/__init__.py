"""The game's maths, standard library only: the cards, the published shuffle, scoring, the rule sets and
their vocabulary (enums) and refusals (errors), the canonical form of the hash chain and the digest of the code
that decides hands. The rules core builds on it; the outside verifier (tools/verify_hand.py) imports it with
nothing installed."""
