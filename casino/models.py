"""Models of the casino project itself: only what the admin needs to hang permissions and pages on.

``Player`` is a proxy of the user model (no table of its own): the admin's "Players" section (balances,
postings, cashier), with the ``use_cashier`` permission the "operator" group holds. It has only the ``view``
default permission: players register through the API, and their accounts are never edited in the admin.
"""

from __future__ import annotations

from django.contrib.auth.models import User


class Player(User):
    class Meta:
        proxy = True
        verbose_name = "player"
        verbose_name_plural = "players"
        default_permissions = ("view",)
        permissions = [("use_cashier", "Can deposit and withdraw chips at the cage")]
