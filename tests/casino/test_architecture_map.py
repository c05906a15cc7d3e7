"""docs/architecture.md's map of the packages matches the tree and the import contracts (issue #29): every
top-level package of the repository is in the page's table and nothing else is; the page's layers are exactly the
layers contract of pyproject.toml, in order; that contract names every package of the project."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import ROOT

PAGE = (ROOT / "docs" / "architecture.md").read_text()
NOT_PACKAGES = {"tests", "docs", "spec", "templates", "locale", "docker", "scripts", "artifacts", "node_modules"}


def _packages_in_tree() -> set[str]:
    return {
        path.name
        for path in ROOT.iterdir()
        if path.is_dir() and not path.name.startswith((".", "_")) and path.name not in NOT_PACKAGES
        and any(path.glob("*.py")) and ".egg-info" not in path.name
    }  # fmt: skip


def _packages_in_page() -> set[str]:
    section = PAGE.split("## Packages", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^\| `(\w+)/` \|", section, flags=re.M))


def _layers_in_page() -> list[str]:
    block = PAGE.split("<!-- layers:", 1)[1].split("```", 2)[1]
    return [line.strip() for line in block.strip().splitlines()]


def _layers_contract() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["type"] == "layers" and "|" in "".join(c["layers"]))
    return {"layers": contract["layers"], "roots": config["root_packages"]}


def test_the_page_names_every_package_of_the_tree_and_no_other() -> None:
    assert _packages_in_page() == _packages_in_tree()


def test_the_page_shows_the_layers_contract_as_it_is() -> None:
    contract = [" | ".join(name.strip() for name in layer.split("|")) for layer in _layers_contract()["layers"]]
    assert _layers_in_page() == contract


def test_the_layers_contract_covers_every_package_but_the_outside_verifier() -> None:
    contract = _layers_contract()
    in_layers = {name.strip() for layer in contract["layers"] for name in layer.split("|")}
    assert in_layers == set(contract["roots"]) == _packages_in_tree() - {"tools"}
