"""A paginator for admin lists of millions of rows: it never counts more than a few thousand of them.

Django's admin paginator runs ``SELECT COUNT(*)`` over the filtered rows on every list page, which reads the
whole table (or the whole filtered part of it) each time. ``EstimatedCountPaginator`` counts exactly only while
that is cheap, and estimates above:

- it first counts at most ``ADMIN_EXACT_COUNT_UP_TO`` + 1 rows (``SELECT COUNT(*) FROM (... LIMIT n + 1)``, in
  the list's own order, so through the same index as the page): up to that many rows the count is exact, pages
  are Django's (no empty page after the last one) and the list says "12 hands";
- beyond it the count is PostgreSQL's estimate, never below the bound just seen: the table's
  ``pg_class.reltuples`` unfiltered (readable by any role), the planner's row estimate of the list's query
  (``EXPLAIN``, which runs nothing) when filtered; the list says "about N" (``count_is_estimate``), its page links
  come from the estimate, and any page number may be asked for (past the end the page is just empty), so a low
  estimate never hides a page.

The events, hands, transactions, postings and accounts lists use it (with ``show_full_result_count = False``).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.admin import ShowFacets
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import PAGE_VAR, ChangeList
from django.core.paginator import InvalidPage, Page, PageNotAnInteger, Paginator
from django.db import connections
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.functional import cached_property


def estimated_count(queryset: QuerySet[Any]) -> int:
    """PostgreSQL's estimate of how many rows ``queryset`` returns, without reading them."""
    connection = connections[queryset.db]
    with connection.cursor() as cursor:
        if not queryset.query.where and not queryset.query.distinct:
            # a partitioned table (the events: docs/scale-out.md): its partitions' figures, which autovacuum keeps
            # (it never analyzes the parent), or none while any partition was never analyzed
            cursor.execute(
                "SELECT CASE WHEN c.relkind <> 'p' THEN c.reltuples::bigint ELSE (SELECT CASE WHEN bool_and("
                "p.reltuples >= 0) THEN sum(p.reltuples)::bigint END FROM pg_inherits i JOIN pg_class p ON "
                "p.oid = i.inhrelid WHERE i.inhparent = c.oid) END FROM pg_class c WHERE c.oid = to_regclass(%s)",
                [queryset.model._meta.db_table],
            )
            row = cursor.fetchone()
            if row is not None and row[0] is not None and row[0] >= 0:  # -1: never vacuumed nor analyzed
                return int(row[0])
        sql, params = queryset.order_by().values("pk").query.sql_with_params()
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def bounded_count(queryset: QuerySet[Any], bound: int) -> int:
    """How many rows ``queryset`` has, counting at most ``bound`` + 1 of them (in the list's order)."""
    return int(queryset.values("pk")[: bound + 1].count())


class EstimatedCountPaginator(Paginator):
    """A ``Paginator`` whose ``count`` is exact up to ``ADMIN_EXACT_COUNT_UP_TO`` rows and PostgreSQL's estimate
    above (see the module docstring); ``count_is_estimate`` says which."""

    count_is_estimate = False

    @cached_property
    def count(self) -> int:
        object_list: Any = self.object_list
        if not isinstance(object_list, QuerySet):
            return len(object_list)
        bound = int(getattr(settings, "ADMIN_EXACT_COUNT_UP_TO", 10_000))
        seen = bounded_count(object_list, bound)
        if seen <= bound:
            return seen
        self.count_is_estimate = True
        return max(estimated_count(object_list), seen)

    def validate_number(self, number: Any) -> int:
        self.count  # noqa: B018 - decides count_is_estimate
        if not self.count_is_estimate:
            return super().validate_number(number)
        return self._any_page(number)

    def page(self, number: Any) -> Page:
        self.count  # noqa: B018 - decides count_is_estimate
        if not self.count_is_estimate:
            return super().page(number)
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        return self._get_page(self.object_list[bottom : bottom + self.per_page], number, self)

    def _any_page(self, number: Any) -> int:
        """Any page from 1 on: the count is an estimate, so a page past it may still hold rows."""
        try:
            if isinstance(number, float) and not number.is_integer():
                raise ValueError
            value = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger("That page number is not an integer") from None
        if value < 1:
            raise InvalidPage("That page number is less than 1")
        return value



class EstimatedChangeList(ChangeList):
    """A change list that always shows one page (Django's shows every row when the count says they fit on one
    page, which an estimate must not decide) and knows whether another page follows."""

    def get_results(self, request: HttpRequest) -> None:
        paginator = self.model_admin.get_paginator(request, self.queryset, self.list_per_page)
        try:
            paginator.validate_number(self.page_num)
        except InvalidPage:
            raise IncorrectLookupParameters from None
        # one row more than a page tells whether a next page exists, whatever the estimate says
        offset = (self.page_num - 1) * self.list_per_page
        rows = list(self.queryset[offset : offset + self.list_per_page + 1])
        self.has_next_page = len(rows) > self.list_per_page
        self.result_list = rows[: self.list_per_page]
        self.result_count = max(paginator.count, (self.page_num - 1) * self.list_per_page + len(self.result_list))
        self.show_full_result_count = False
        self.show_admin_actions = True
        # no "N results (Show all)" beside the search box: the paginator's line says the count, and this list is
        # never read whole
        self.full_result_count = self.result_count
        self.can_show_all = False
        self.multi_page = self.result_count > self.list_per_page or self.page_num > 1
        self.paginator = paginator
        query = dict(request.GET.items())
        query[PAGE_VAR] = str(self.page_num + 1)
        self.next_page_query = urlencode(query)


class EstimatedCountAdminMixin:
    """For a ``ModelAdmin`` of a large table: estimated counts, no full count, no "show all", no facets."""

    paginator = EstimatedCountPaginator
    show_full_result_count = False
    list_max_show_all = 0
    show_facets = ShowFacets.NEVER

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return EstimatedChangeList
