"""Infrastructure tasks."""

from celery import shared_task


@shared_task(name="casino.ping")
def ping(payload: str = "pong") -> str:
    """Echo the payload: the smoke test's round trip through a real broker and worker."""
    return payload
