"""The API's one pagination: page numbers, ``{count, next, previous, results}``."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class ApiPagination(PageNumberPagination):
    """``?page=N`` (1-based; a page past the end is 404 ``not_found``) and ``?page_size=N`` (1-200, default
    50; a size that is not a positive number falls back to the default, larger ones are capped)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
