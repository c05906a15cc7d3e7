"""The operators' back office (Django app label ``casino``): the admin site's own pages (players and the
cashier, the audit log), the dashboard and its charts, the records of operations (failed verifications,
reconciliation runs) and ``/metrics``, the operations tasks on beat, ``manage.py reconcile``, and the database
roles ``manage.py migrate`` creates (``dbroles``)."""
