"""Every admin page filters only on what it offers (issue 11; DESIGN.md pitfalls).

Django's changelists apply any lookup named in the query string to the queryset unless ``lookup_allowed`` says
no; its default allows every lookup on a local field, JSON paths included. So ``?data__server_seed__startswith=ab``
on the event store, or ``?password__regex=^pbkdf2`` on the players list, answers a yes/no question about a secret
per request: an oracle that reads it a character at a time. :class:`DeclaredLookupsOnly` (mixed into every
ModelAdmin of the project) allows exactly the parameters of the page's own filters (``list_filter``), of its date
bar (``date_hierarchy``) and of the links the project draws to it (``extra_lookups``); anything else is refused
with Django's ``DisallowedModelAdminLookup`` (400), whatever the user's role. Sorting (``?o=``) is limited to
columns that do not order by a secret.

:data:`SECRET_FIELDS` names the columns that hold a secret (a hand's seed and its face-down cards before
settlement live in ``Event.data`` and ``Event.metadata``; passwords, serialised states). docs/security.md lists them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import apps
from django.contrib import admin
from django.contrib.admin import filters
from django.contrib.admin.filters import FieldListFilter, ListFilter
from django.contrib.admin.utils import get_fields_from_path
from django.contrib.admin.widgets import url_params_from_lookup_dict
from django.db.models import Model
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest

#: (app label, model name, field): columns an admin URL must never filter, search or sort on.
SECRET_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("tables", "event", "data"),  # a hand in play: server seed (HandOpened), face-down cards (CardDealt)
    ("tables", "event", "metadata"),  # the recorded command's context: entropy = the seed, others' wallets
    ("tables", "hand", "start_state"),  # the stored state at the hand's start: the deck and the seed
    ("tables", "snapshot", "state"),  # the same, at hand boundaries
    ("tables", "idempotencyrecord", "response"),  # a player's own view (his face-down card)
    ("auth", "user", "password"),  # the password hash
    ("knox", "authtoken", "digest"),  # API tokens, hashed
    ("knox", "authtoken", "token_key"),
)


def _secret_fields() -> frozenset[tuple[type[Model], str]]:
    found = set()
    for app_label, model_name, field in SECRET_COLUMNS:
        try:
            model = apps.get_model(app_label, model_name)
        except LookupError:
            continue  # an app that is not installed
        found.add((model._meta.concrete_model, field))
    return frozenset(found)


class _SecretFields:
    """``(concrete model, field name)`` pairs of :data:`SECRET_COLUMNS`, resolved once the apps are ready."""

    _cache: frozenset[tuple[type[Model], str]] | None = None

    def __contains__(self, item: object) -> bool:
        if self._cache is None:
            self._cache = _secret_fields()
        return item in self._cache


SECRET_FIELDS = _SecretFields()


def declared_lookups(model_admin: admin.ModelAdmin, request: HttpRequest) -> set[str]:
    """The query parameters the page's own filters, date bar and links use."""
    allowed: set[str] = set(getattr(model_admin, "extra_lookups", ()))
    for item in model_admin.get_list_filter(request):
        allowed.update(_filter_parameters(model_admin, request, item))
    hierarchy = model_admin.get_date_hierarchy(request) if hasattr(model_admin, "get_date_hierarchy") else None
    hierarchy = hierarchy or model_admin.date_hierarchy
    if hierarchy:
        allowed.update(f"{hierarchy}__{part}" for part in ("year", "month", "day", "gte", "lt"))
    return allowed


def _filter_parameters(model_admin: admin.ModelAdmin, request: HttpRequest, item: Any) -> Iterable[str]:
    model = model_admin.model
    if isinstance(item, type) and issubclass(item, ListFilter) and not issubclass(item, FieldListFilter):
        parameter = getattr(item, "parameter_name", None)
        if parameter:
            return [parameter]
        return list(item(request, {}, model, model_admin).expected_parameters() or [])
    path, filter_class = (item[0], item[1]) if isinstance(item, list | tuple) else (item, None)
    field = get_fields_from_path(model, path)[-1]
    if filter_class is None:
        filter_class = next(cls for test, cls in FieldListFilter._field_list_filters if test(field))
    # The parameters of Django's field filters, named without building the filter (which would query the
    # database for its choices on every request).
    if issubclass(filter_class, filters.RelatedFieldListFilter):
        return [f"{path}__{field.target_field.name}__exact", f"{path}__isnull"]
    if issubclass(filter_class, filters.BooleanFieldListFilter | filters.ChoicesFieldListFilter):
        return [f"{path}__exact", f"{path}__isnull"]
    if issubclass(filter_class, filters.DateFieldListFilter):
        return [f"{path}__gte", f"{path}__lt", f"{path}__isnull"]
    if issubclass(filter_class, filters.AllValuesFieldListFilter):
        return [path, f"{path}__isnull"]
    if issubclass(filter_class, filters.EmptyFieldListFilter):
        return [f"{path}__isempty"]
    spec = filter_class(field, request, {}, model, model_admin, field_path=path)
    return [p for p in spec.expected_parameters() if p]


class DeclaredLookupsOnly(admin.ModelAdmin):
    """A ModelAdmin that refuses every URL lookup its page does not offer, and every sort by a secret.

    ``extra_lookups``: parameters of links the project draws to this page that no filter declares (for
    example ``account__id__exact`` on the postings list).
    """

    extra_lookups: tuple[str, ...] = ()

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        # The pop-up of a raw-id widget filters by the relation's limit_choices_to: Django's own exception.
        for fk_lookup in self.model._meta.related_fkey_lookups:
            if callable(fk_lookup):
                fk_lookup = fk_lookup()
            if (lookup, value) in url_params_from_lookup_dict(fk_lookup).items():
                return True
        cache = request.__dict__.setdefault("_declared_lookups", {})
        key = type(self)
        if key not in cache:
            cache[key] = declared_lookups(self, request)
        return lookup in cache[key]

    def get_sortable_by(self, request: HttpRequest) -> Any:
        sortable = super().get_sortable_by(request)
        return [name for name in sortable if not _orders_by_secret(self, name)]


def sortable_targets(model_admin: admin.ModelAdmin) -> list[str]:
    """The database paths the page's sortable columns order by (for the tests and docs/security.md)."""
    targets = []
    for name in model_admin.list_display:
        target = _order_target(model_admin, name)
        if isinstance(target, str):
            targets.append(target)
    return targets


def _order_target(model_admin: admin.ModelAdmin, name: Any) -> Any:
    if callable(name):
        return getattr(name, "admin_order_field", None)
    try:
        return model_admin.model._meta.get_field(name).name
    except Exception:
        pass
    attr = getattr(model_admin, name, None) or getattr(model_admin.model, name, None)
    if isinstance(attr, property):
        attr = attr.fget
    return getattr(attr, "admin_order_field", None)


def _orders_by_secret(model_admin: admin.ModelAdmin, name: Any) -> bool:
    target = _order_target(model_admin, name)
    if not isinstance(target, str):
        return False
    model: Any = model_admin.model
    for part in target.lstrip("-").split(LOOKUP_SEP):
        if model is None:
            return False
        try:
            field = model._meta.get_field(part)
        except Exception:
            return False
        if (model._meta.concrete_model, field.name) in SECRET_FIELDS:
            return True
        model = field.related_model if field.is_relation else None
    return False


class ViewOnlyAdmin(DeclaredLookupsOnly):
    """A page to read, never to add, change or delete through (audit trails, ledgers, computed figures)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
