from __future__ import annotations

import pytest

from tests.settlement.backends import local_postgres  # noqa: F401, F811 - the session's server


@pytest.fixture
def local_nats():
    """A nats-server with JetStream of its own for each test (it starts in a fraction of a
    second), so streams and consumers never leak from one test into the next."""
    from station.studio.servers import LocalNats
    from tests.ports import free_port

    server = LocalNats(port=free_port()).start()  # its own port: some tests restart it
    yield server
    server.close()


@pytest.fixture
def studio_ledger(request):
    server = request.getfixturevalue("local_postgres")
    name = "s_" + "".join(c if c.isalnum() else "_" for c in request.node.name)[-40:].lower()
    return server.create_database(name)
