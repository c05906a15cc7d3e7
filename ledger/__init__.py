"""The double-entry chip ledger (docs/ledger.md): accounts, journal, the cashier, a hand's postings,
sweeps, corrections and reconciliation."""
