"""The outside verifier's checks of one hand (``tools/verify_hand.py`` is its command line).

Standard library only, with the game's standard-library maths (``gamemath/``) and the pure-Python Ed25519 check
beside this package (``tools/ed25519.py``): a player runs it with nothing installed and can read every line it
runs. ``export`` runs every check of a hand in order; ``hand`` finds the hand in its export; ``seeds`` checks the
seeds (commitment, publication, client seed, timing), ``cards`` the deck, the deals and the feed's cards,
``results`` the rules, totals and results, ``ledger`` the chips, ``chain`` the hash chain and the signed
checkpoints; ``keys`` says which public keys to believe, ``service`` reads the casino's API, ``report`` prints
each check's line.
"""
