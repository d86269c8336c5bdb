"""Station configuration: one TOML file per table, validated at start with errors that name
the key (`config/*.toml` holds a documented example per setup)."""

from __future__ import annotations

import logging
import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from station.core.settings import DEFAULT_GAME, SettingsError, TableSettings, default_table
from station.live.disk import DiskLimits

log = logging.getLogger("station.config")


class ConfigError(ValueError):
    pass


@dataclass
class ShoeConfig:
    url: str = ""
    baudrate: int = 115200


@dataclass
class CameraConfig:
    enabled: bool = False
    source: str = "synthetic"
    layout: str | None = None
    fps: float = 5.0
    frames_dir: str | None = None


@dataclass
class SettlementConfig:
    #: embedded (own SQLite ledger) | remote (signed HTTP to `station settlement serve`) |
    #: bus (the studio bus: NATS JetStream, `station settlement consume` on the other side)
    mode: str = "embedded"
    ledger: str = ""
    #: remote: the service's http(s) URL; bus: the NATS server's nats:// (or tls://) URL
    url: str = ""
    secret_env: str = "STATION_SETTLEMENT_SECRET"
    #: bus: publish the table's public state for the studio console
    publish_state: bool = True
    #: bus: ask the studio ledger to reserve each bet when the table accepts it (shared
    #: wallets across tables; docs/studio.md), waiting at most `reserve_timeout_s`
    reserve: bool = False
    reserve_timeout_s: float = 0.3
    #: what the bet intake does while the studio ledger does not answer (station/live/reservations.py)
    reserve_when_down: str = "refuse"
    #: the ledger the console's evidence packs read postings and the newest checkpoint from,
    #: read only (a file or a postgresql:// URL): on the bus or remote, the studio's; in
    #: embedded mode the table's own ledger when not given
    evidence_ledger: str = ""
    #: with reserve_when_down = "credit": what one account's bets may take on the table's
    #: credit (minor units) while the ledger does not answer, until it answers again
    reserve_credit_limit: int = 0


SETTLEMENT_MODES = ("embedded", "remote", "bus")
_BUS_TABLE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass
class HttpConfig:
    host: str = "127.0.0.1"
    port: int = 8600


@dataclass
class StationConfig:
    table: TableSettings
    data_dir: Path
    shoe: ShoeConfig = field(default_factory=ShoeConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    settlement: SettlementConfig = field(default_factory=SettlementConfig)
    console: HttpConfig = field(default_factory=HttpConfig)
    bet_api: HttpConfig = field(default_factory=lambda: HttpConfig(port=8601))
    bet_api_keys_env: str = "STATION_BET_API_KEYS"
    users_file: str | None = None
    record_traces: bool = True
    journal_sync: str = "full"
    #: `[journal]`: the environment variable holding the table's checkpoint signing key, and
    #: how many entries a checkpoint covers at most (docs/core.md, "The hash chain")
    signing_key_env: str = "STATION_JOURNAL_KEY"
    #: `[journal] signing_key_file`: the key file, outside storage.dir, used when the
    #: variable is not set (station/live/journal_key.py)
    signing_key_file: Path | None = None
    checkpoint_every: int = 1000
    #: `[storage] retention_days`, `free_warn_mb`, `free_floor_mb` (station/live/disk.py)
    disk: DiskLimits = field(default_factory=DiskLimits)
    source: str = "<defaults>"

    @property
    def journal_path(self) -> Path:
        return self.data_dir / "journal.sqlite"

    @property
    def ledger_path(self) -> Path:
        return Path(self.settlement.ledger) if self.settlement.ledger else self.data_dir / "ledger.sqlite"

    @property
    def evidence_ledger(self) -> str | None:
        """The ledger evidence packs read (postings, the newest checkpoint), as a file path or
        a postgresql:// URL: `[settlement] evidence_ledger`, else the table's own ledger in
        embedded mode; None when the table names none."""
        if self.settlement.evidence_ledger:
            return self.settlement.evidence_ledger
        return str(self.ledger_path) if self.settlement.mode == "embedded" else None

    @property
    def traces_dir(self) -> Path:
        return self.data_dir / "traces"

    @property
    def frames_path(self) -> Path:
        """Where the camera keeps its frame at each validation: `[camera] frames_dir`, else
        `frames/` in storage.dir. Retention prunes it, and evidence packs take frames from it."""
        return Path(self.camera.frames_dir) if self.camera.frames_dir else self.data_dir / "frames"


_SECTIONS = {"table", "game", "storage", "shoe", "camera", "settlement", "console", "bet_api",
             "recording", "journal"}


def _take(section: dict[str, Any], where: str, key: str, kind: type | tuple[type, ...],
          default: Any) -> Any:
    if key not in section:
        return default
    v = section.pop(key)
    ok = isinstance(v, kind) and not (isinstance(v, bool) and kind in (int, float, (int, float)))
    if not ok:
        name = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ConfigError(f"{where}.{key}: expected {name}, got {v!r}")
    return v


def _leftover(section: dict[str, Any], where: str) -> None:
    if section:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(section))}")


def parse_config(data: dict[str, Any], *, source: str = "<dict>", base_dir: Path | None = None) -> StationConfig:
    data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    unknown = set(data) - _SECTIONS
    if unknown:
        raise ConfigError(f"{source}: unknown section(s) {', '.join(sorted(unknown))}")
    for name in _SECTIONS & set(data):
        if not isinstance(data[name], dict):
            raise ConfigError(f"{source}: [{name}] must be a table")
    base = base_dir or Path.cwd()

    t = data.get("table", {})
    game = _take(t, "table", "game", str, DEFAULT_GAME)
    name = _take(t, "table", "name", str, None) or _default_table(game)
    procedure = _take(t, "table", "procedure", dict, {})
    _leftover(t, "table")
    cam = data.get("camera", {})
    camera = CameraConfig(
        enabled=_take(cam, "camera", "enabled", bool, False),
        source=_take(cam, "camera", "source", str, "synthetic"),
        layout=_take(cam, "camera", "layout", str, None),
        fps=float(_take(cam, "camera", "fps", (int, float), 5.0)),
        frames_dir=_take(cam, "camera", "frames_dir", str, None),
    )
    _leftover(cam, "camera")
    from station.games import GAMES

    if game not in GAMES:
        raise ConfigError(f"table.game: unknown game {game!r} (known: {', '.join(GAMES)})")
    table = _table_settings(name, game, camera.enabled, procedure, data.get("game", {}))

    st = data.get("storage", {})
    data_dir = Path(_take(st, "storage", "dir", str, f"var/{name}"))
    sync = _take(st, "storage", "sync", str, "full")
    if sync not in ("full", "normal"):
        raise ConfigError(f"storage.sync: 'full' or 'normal', got {sync!r}")
    disk = DiskLimits(
        retention_days=float(_take(st, "storage", "retention_days", (int, float), 90)),
        free_warn_mb=_take(st, "storage", "free_warn_mb", int, 2048),
        free_floor_mb=_take(st, "storage", "free_floor_mb", int, 512))
    if not disk.retention_days > 0:
        raise ConfigError(f"storage.retention_days: more than 0 days, got {disk.retention_days}")
    if not 0 <= disk.free_floor_mb <= disk.free_warn_mb:
        raise ConfigError("storage.free_floor_mb: from 0 up to storage.free_warn_mb, got "
                          f"{disk.free_floor_mb} (warn {disk.free_warn_mb})")
    _leftover(st, "storage")
    if not data_dir.is_absolute():
        data_dir = base / data_dir
    if camera.frames_dir is not None and not Path(camera.frames_dir).is_absolute():
        camera.frames_dir = str(base / camera.frames_dir)

    sh = data.get("shoe", {})
    shoe = ShoeConfig(url=_take(sh, "shoe", "url", str, ""),
                      baudrate=_take(sh, "shoe", "baudrate", int, 115200))
    _leftover(sh, "shoe")
    if shoe.baudrate not in (9600, 19200, 38400, 57600, 115200, 230400):
        raise ConfigError(f"shoe.baudrate: {shoe.baudrate} is not a standard rate from 9600")

    settlement = _settlement(data.get("settlement", {}), name, base)

    def http(section: str, default_port: int) -> HttpConfig:
        s = data.get(section, {})
        h = HttpConfig(host=_take(s, section, "host", str, "127.0.0.1"),
                       port=_take(s, section, "port", int, default_port))
        if not 0 <= h.port <= 65535:
            raise ConfigError(f"{section}.port: {h.port} is not a TCP port")
        return h

    console = http("console", 8600)
    users = data.get("console", {}).pop("users", None)
    if users is not None and not isinstance(users, str):
        raise ConfigError("console.users: expected a file path")
    _leftover(data.get("console", {}), "console")
    bet_api = http("bet_api", 8601)
    keys_env = data.get("bet_api", {}).pop("keys_env", "STATION_BET_API_KEYS")
    _leftover(data.get("bet_api", {}), "bet_api")
    rec = data.get("recording", {})
    record = _take(rec, "recording", "traces", bool, True)
    _leftover(rec, "recording")
    jr = data.get("journal", {})
    key_env = _take(jr, "journal", "signing_key_env", str, "STATION_JOURNAL_KEY")
    key_file_text = _take(jr, "journal", "signing_key_file", str, None)
    every = _take(jr, "journal", "checkpoint_every", int, 1000)
    _leftover(jr, "journal")
    if not key_env:
        raise ConfigError("journal.signing_key_env: name an environment variable")
    key_file = None
    if key_file_text is not None:
        if not key_file_text:
            raise ConfigError("journal.signing_key_file: name a file, or leave the key out")
        key_file = Path(key_file_text) if Path(key_file_text).is_absolute() else base / key_file_text
        refused = key_file_refusal(key_file, data_dir)
        if refused:
            raise ConfigError(refused)
    if not 1 <= every <= 1_000_000:
        raise ConfigError(f"journal.checkpoint_every: 1 to 1000000 entries, got {every}")
    cfg = StationConfig(table=table, data_dir=data_dir, shoe=shoe, camera=camera,
                        settlement=settlement, console=console, bet_api=bet_api,
                        bet_api_keys_env=keys_env, users_file=users, record_traces=record,
                        journal_sync=sync, signing_key_env=key_env, signing_key_file=key_file,
                        checkpoint_every=every,
                        disk=disk, source=source)
    if camera.enabled:
        load_table_camera_config(cfg)  # a camera layout that does not fit the game: refuse now
    if settlement.reserve:
        check_reservable(game)
    return cfg


def _default_table(game: str) -> str:
    """A table that names itself not is the first of its game's (`[table] game`)."""
    try:
        return default_table(game)
    except SettingsError as e:
        raise ConfigError(f"table.game: {e}") from None


def _table_settings(name: str, game: str, camera: bool, procedure: dict[str, Any],
                    own: dict[str, Any]) -> TableSettings:
    """The table's settings from `[table] procedure`, the game's own from `[game]`, read
    through the class the game declares (`Game.settings_class`). A game's setting written
    under `[table] procedure`, where they all were before the games held their own, is still
    taken, with a warning that names its place now; written in both places, it is refused."""
    try:
        table = TableSettings().with_overrides({"table": name, "game": game, "camera": camera})
        own_names = {f.name for f in fields(table.own)}
        moved = sorted(k for k in procedure
                       if k in own_names or f"{k}_seconds" in own_names)
        twice = [k for k in moved if k in own]
        if twice:
            raise ConfigError(f"game.{twice[0]}: also set as table.procedure.{twice[0]}; a "
                              f"{game} table's own settings belong in [game] alone")
        if moved:
            log.warning("table.procedure: %s %s a %s table's own setting: move %s to the "
                        "[game] section", ", ".join(moved), "is" if len(moved) == 1 else "are",
                        game, "it" if len(moved) == 1 else "them")
        try:
            table = table.with_overrides(procedure)
        except SettingsError as e:
            raise ConfigError(f"table.procedure: {e}") from None
        return table.with_game_settings(own, where="game")
    except SettingsError as e:
        raise ConfigError(f"game: {e}" if not str(e).startswith("game.") else str(e)) from None


def key_file_refusal(key_file: Path, data_dir: Path) -> str | None:
    """Why the journal's key file may not be where it is, or None: inside storage.dir,
    whoever can change the journal could also sign it again."""
    if Path(key_file).resolve().is_relative_to(Path(data_dir).resolve()):
        return (f"journal.signing_key_file: {key_file} lies inside storage.dir ({data_dir}): "
                "whoever can change the journal could sign it again; keep the key elsewhere "
                "(docs/operator.md, \"Proving the journal\")")
    return None


def check_reservable(game: str) -> None:
    """`settlement.reserve` reserves what the table takes from a wallet before it takes it:
    the bet intake's bets, and the draws a pot game declares (`Procedure.wallet_draws`: its
    antes, bets and buy-ins; docs/studio.md, "Pot games in the studio"). A game whose money
    comes by neither way could not be reserved: with a wallet shared across tables the studio
    ledger might refuse it after the table took it, so it is refused at start."""
    from station.games import get_game

    rules = get_game(game)
    procedure = rules.table_procedure()
    if not rules.spots and not (procedure is not None and procedure.wallet_draws):
        raise ConfigError(f"settlement.reserve: a {game} table takes its players' money neither "
                          "through the bet intake nor by draws its game declares, so the studio "
                          "ledger cannot reserve it; run it with reserve = false and wallets of "
                          "its own (docs/studio.md, 'Pot games in the studio')")


def _settlement(se: dict[str, Any], table: str, base: Path) -> SettlementConfig:
    settlement = SettlementConfig(
        mode=_take(se, "settlement", "mode", str, "embedded"),
        ledger=_take(se, "settlement", "ledger", str, ""),
        url=_take(se, "settlement", "url", str, ""),
        secret_env=_take(se, "settlement", "secret_env", str, "STATION_SETTLEMENT_SECRET"),
        publish_state=_take(se, "settlement", "publish_state", bool, True),
        reserve=_take(se, "settlement", "reserve", bool, False),
        reserve_timeout_s=float(_take(se, "settlement", "reserve_timeout_s", (int, float), 0.3)),
        reserve_when_down=_take(se, "settlement", "reserve_when_down", str, "refuse"),
        evidence_ledger=_take(se, "settlement", "evidence_ledger", str, ""),
        reserve_credit_limit=_take(se, "settlement", "reserve_credit_limit", int, 0),
    )
    _leftover(se, "settlement")
    mode = settlement.mode
    if mode not in SETTLEMENT_MODES:
        raise ConfigError(f"settlement.mode: 'embedded', 'remote' or 'bus', got {mode!r}")
    if mode == "remote" and not settlement.url:
        raise ConfigError("settlement.url: needed when settlement.mode = 'remote'")
    if mode == "bus":
        if not settlement.url:
            raise ConfigError("settlement.url: the studio bus's nats://host:port is needed when "
                              "settlement.mode = 'bus'")
        if not settlement.url.startswith(("nats://", "tls://")):
            raise ConfigError(f"settlement.url: the studio bus is a nats:// or tls:// URL, got "
                              f"{settlement.url!r}")
        if settlement.ledger:
            raise ConfigError("settlement.ledger: a table on the studio bus keeps no ledger of its"
                              " own (the studio ledger is the consumer's --ledger)")
        if not _BUS_TABLE.match(table):
            raise ConfigError(f"table.name: on the studio bus a table's name is 1-64 letters, "
                              f"digits, '-' or '_' (it names the table's subjects), got {table!r}")
        from station.live.reservations import POLICIES

        if settlement.reserve_when_down not in POLICIES:
            raise ConfigError(f"settlement.reserve_when_down: one of {', '.join(POLICIES)}, got "
                              f"{settlement.reserve_when_down!r}")
        credit = settlement.reserve_credit_limit
        if settlement.reserve_when_down == "credit":
            from station.money import MAX_AMOUNT

            if isinstance(credit, bool) or not 0 < credit <= MAX_AMOUNT:
                raise ConfigError("settlement.reserve_credit_limit: with reserve_when_down ="
                                  f" \"credit\", a whole amount from 1 to {MAX_AMOUNT} minor"
                                  f" units, got {credit!r}")
        elif credit:
            raise ConfigError("settlement.reserve_credit_limit: only with reserve_when_down ="
                              " \"credit\"")
        if not 0.01 <= settlement.reserve_timeout_s <= 10:
            raise ConfigError(f"settlement.reserve_timeout_s: between 0.01 and 10 seconds, got "
                              f"{settlement.reserve_timeout_s}")
    elif settlement.reserve:
        raise ConfigError("settlement.reserve: reservations are made in the studio ledger, over "
                          "the bus: only with settlement.mode = 'bus'")
    if settlement.ledger and not Path(settlement.ledger).is_absolute():
        settlement.ledger = str(base / settlement.ledger)
    from station.settlement.ledger.store import is_postgres_url

    books = settlement.evidence_ledger
    if books and not is_postgres_url(books) and not Path(books).is_absolute():
        settlement.evidence_ledger = str(base / books)
    return settlement


def load_config(path: str | Path) -> StationConfig:
    p = Path(path)
    try:
        with open(p, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML ({e})") from None
    cfg = parse_config(data, source=str(p), base_dir=Path.cwd())
    if not cfg.shoe.url:
        raise ConfigError(f"{p}: shoe.url: the shoe's serial URL is required to run a table")
    return cfg


def env_secret(name: str) -> str | None:
    v = os.environ.get(name)
    return v if v else None


# ---- the camera config file, checked against the table ------------------------------------

def load_table_camera_config(cfg: StationConfig) -> Any:
    """The camera config file `[camera] layout` names (None: the studio layout the table's
    game declares, `Game.camera_layout`),
    refused with a ConfigError when it cannot be read or when its zones are not exactly the
    table's game's (`station.games.get_game(game).zones`): the message names the missing and
    the extra zones."""
    from firmware_bridge.camera.config import load_camera_config
    from firmware_bridge.camera.layout import LayoutError, check_zones
    from firmware_bridge.camera.rig import is_rig_file
    from station.games import get_game
    from station.games.camera_zones import game_layout_data, game_zones

    if is_rig_file(cfg.camera.layout):
        return load_table_camera_rig(cfg)
    try:
        studio = game_layout_data(cfg.table.game)
        if cfg.camera.layout is None and studio is None:
            raise LayoutError(f"camera.layout: a {cfg.table.game} table's game declares no studio "
                              "camera layout: name a camera config file")
        cam = load_camera_config(cfg.camera.layout, game_zones, default=studio)
        what = cfg.camera.layout or (f"the {cfg.table.game} studio layout (no camera.layout given)")
        check_zones(cam.layout, get_game(cfg.table.game).zones, cfg.table.game, source=f"camera.layout: {what}")
        if cam.layout.game != cfg.table.game:
            raise LayoutError(f"camera.layout: {what} is a layout for {cam.layout.game!r}, the table "
                              f"plays {cfg.table.game!r} (set [layout] game, or name the game's layout)")
    except LayoutError as e:
        raise ConfigError(str(e)) from None
    return cam


def load_table_camera_rig(cfg: StationConfig) -> Any:
    """A camera rig (`[camera] layout` naming a file with `[cameras]`, firmware_bridge/camera/
    rig.py): every camera's layout is the table's game's, and their zones together are
    exactly the game's. Returns the Rig."""
    from types import SimpleNamespace

    from firmware_bridge.camera.layout import LayoutError, check_zones
    from firmware_bridge.camera.rig import load_rig
    from station.games import get_game
    from station.games.camera_zones import game_zones

    what = cfg.camera.layout
    try:
        rig = load_rig(what, game_zones)
        for name, cam in rig.cameras.items():
            if cam.layout.game != cfg.table.game:
                raise LayoutError(f"camera.layout: {what}: cameras.{name} has a layout for {cam.layout.game!r}, "
                                  f"the table plays {cfg.table.game!r}")
        together = SimpleNamespace(zones=dict.fromkeys(rig.zone_names), name=f"{what} (every camera)")
        check_zones(together, get_game(cfg.table.game).zones, cfg.table.game,  # type: ignore[arg-type]
                    source=f"camera.layout: {what}")
    except LayoutError as e:
        raise ConfigError(str(e)) from None
    return rig
