"""The game endpoints of the REST API v1 (spec/API.md): tables, seats, actions, the events feed, hands."""
