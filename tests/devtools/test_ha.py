"""devtools/ha.py's settings, without starting anything (the set itself runs in tests/soak/test_failover.py and in
the short soak's pg_failover and pg_partition faults)."""

from __future__ import annotations

from devtools.ha import REST_PORT, Network, dcs_settings, haproxy_config


def test_a_cut_off_primary_demotes_itself_before_its_leader_key_can_expire():
    """Patroni's rule: a primary that cannot reach etcd demotes itself after retry_timeout, each loop waits
    loop_wait; so long as loop_wait + 2 * retry_timeout <= ttl it is read-only before another is promoted."""
    for archive in (False, True):
        dcs = dcs_settings(archive=archive)
        assert dcs["loop_wait"] + 2 * dcs["retry_timeout"] <= dcs["ttl"]
        # nothing a client saw committed can be lost: strict synchronous, and only a standby with every commit
        assert dcs["synchronous_mode"] is True and dcs["synchronous_mode_strict"] is True
        assert dcs["maximum_lag_on_failover"] == 0 and dcs["postgresql"]["use_pg_rewind"] is True
        assert ("archive_mode" in dcs["postgresql"]["parameters"]) == archive


def test_haproxy_sends_connections_only_to_the_member_patroni_calls_primary():
    config = haproxy_config("127.0.0.1:6543", [("a", "10.47.9.11"), ("b", "10.47.9.12")])
    assert "bind 127.0.0.1:6543" in config and "mode tcp" in config
    assert "option httpchk GET /primary" in config and "http-check expect status 200" in config
    assert "on-marked-down shutdown-sessions" in config  # a demoted primary's sessions are closed at once
    assert config.count(f"check port {REST_PORT}") == 2 and "server b 10.47.9.12:5432" in config
    assert "resolvers" not in config and "resolvers docker" in haproxy_config("0.0.0.0:5432", [], docker_dns=True)


def test_every_interface_name_fits_linux_and_no_two_sets_share_one():
    names = set()
    for number in range(1, 255):
        network = Network(number)
        mine = {network.bridge, *(network._veth(host) for host in ("etcd", "a", "b", "c", "d"))}
        assert all(len(name) <= 15 for name in mine)  # IFNAMSIZ
        assert not names & mine
        names |= mine
