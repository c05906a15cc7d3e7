"""Responsible gaming (API.md v1.2 "Responsible gaming", DESIGN.md principle 14): limits, cooling-off,
reality checks, breaks and self-exclusion, enforced in the transaction of the stake, deposit or seat they
govern. See docs/responsible-gaming.md."""
