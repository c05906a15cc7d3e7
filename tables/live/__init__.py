"""Live tables on the ASGI server: the WebSocket ``/ws/v1/tables/{id}`` and the events long-poll.

- :mod:`tables.live.watch`: one Channels-layer channel per process (per event loop), joined to the group of
  every table a socket or long-poll of this process follows; a ``table.changed`` message wakes them.
- :mod:`tables.live.limits`: the per-user cap on open waits (long-polls plus sockets), counted in Redis across
  processes, each slot expiring so that a killed process leaks nothing for long.
- :mod:`tables.live.consumers`: the WebSocket (API.md "Live updates").
- :mod:`tables.live.longpoll`: ``GET /tables/{id}/events?wait=S`` on the async side.

What a viewer sees is decided in one place, :mod:`tables.feed`, for REST and sockets alike. A wait holds no
thread and no database connection: reads run in a worker thread and give their connection back at once.
"""
