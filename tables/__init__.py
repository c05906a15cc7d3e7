"""The game app: tables as event streams (the event store, one transaction per command, snapshots, read
models, the ledger's postings of a hand), the services, timers and the checkpoint signer, verification, and the
game's surfaces (the API, the live server, the admin). Its decisions are the rules core's (``rules``)."""
