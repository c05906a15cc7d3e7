"""Tools for developing and testing, never imported by production code: ``make run`` and ``make test``'s
launcher (``devenv``, ``procenv``), development keys, the local nginx, the demo data (``manage.py seed_demo``), the
replication pair of the failover drill and the test database backend."""
