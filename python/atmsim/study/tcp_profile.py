"""A study's TCP, chosen on the command line: ``atmsim reproduce STUDY --tcp cubic+sack+ts``.

The grammar (:func:`parse`): ``+``-joined tokens, exactly one variant — ``tahoe``, ``reno``,
``newreno`` or ``cubic`` — and, each at most once, the flags ``sack`` (selective
acknowledgements, RFC 2018/6675), ``ts`` (RFC 7323 timestamps) and ``hystart`` (HyStart++,
RFC 9406; needs ``ts``). ``sack`` is refused with ``tahoe``, as the scenario format refuses it.
Tokens are case-insensitive and may come in any order; :attr:`TcpProfile.name` writes them in
the canonical order (variant, sack, ts, hystart), so ``ts+cubic`` and ``cubic+ts`` are one profile.

:meth:`TcpProfile.apply` sets ``variant``, ``sack``, ``timestamps`` and ``hystart`` on every
``[[tcp]]`` table and every ``[[traffic]]`` table (generated connections) of a scenario, and
nothing else — but for one field CUBIC replaces: with ``cubic``, a table's ``ssthresh_on_loss``
becomes ``"half_window"`` (the only value the scenario format takes with CUBIC, whose β sets
ssthresh; MAGIC's ``"half_advertised"`` is a hypothesis about BSD's loss rule, not CUBIC's).
A study's runs get it from :class:`atmsim.study.executor.Executor` (its ``tcp``), the one place
every study's scenarios pass before they run.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core import TCP_VARIANTS
from .._scenario import Scenario
from ..errors import ScenarioError

__all__ = ["FLAGS", "VARIANTS", "TcpProfile", "of", "parse"]

#: The variants, as the core names them (``atmsim._core.TCP_VARIANTS``).
VARIANTS: tuple[str, ...] = TCP_VARIANTS
#: The flags' tokens and the scenario fields they set.
FLAGS = {"sack": "sack", "ts": "timestamps", "hystart": "hystart"}
#: The ``[[tcp]]``/``[[traffic]]`` fields a profile sets (every one of them, on every table).
FIELDS = ("variant", "sack", "timestamps", "hystart")
#: ``ssthresh_on_loss`` under CUBIC (:meth:`TcpProfile.apply`).
CUBIC_SSTHRESH = "half_window"
#: The scenario sections whose tables are connections (or generate them).
SECTIONS = ("tcp", "traffic")


@dataclass(frozen=True)
class TcpProfile:
    """One TCP for every connection of a study: its ``variant`` and its options."""

    variant: str
    sack: bool = False
    timestamps: bool = False
    hystart: bool = False

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown TCP variant {self.variant!r}: expected one of {', '.join(VARIANTS)}")
        if self.hystart and not self.timestamps:
            raise ValueError("hystart needs ts (HyStart++ takes a round-trip sample from every ACK)")
        if self.sack and self.variant == "tahoe":
            raise ValueError("sack with tahoe: Tahoe has no fast recovery for SACK to drive (use reno, newreno or cubic)")

    @property
    def name(self) -> str:
        """The profile as the option writes it, canonical order: ``cubic+sack+ts``."""
        flags = [tok for tok, field in FLAGS.items() if getattr(self, field)]
        return "+".join([self.variant, *flags])

    @property
    def label(self) -> str:
        """For reports: ``CUBIC+SACK+TS``."""
        return self.name.upper().replace("NEWRENO", "NewReno").replace("HYSTART", "HyStart")

    def fields(self) -> dict[str, str | bool]:
        """The field values a connection gets."""
        return {"variant": self.variant, "sack": self.sack, "timestamps": self.timestamps, "hystart": self.hystart}

    def apply(self, sc: Scenario) -> Scenario:
        """A copy of ``sc`` with :meth:`fields` set on every table of ``tcp`` and ``traffic``
        (a scenario without those sections is returned as an unchanged copy)."""
        out = sc.copy()
        doc = sc.doc
        values = self.fields()
        for section in SECTIONS:
            tables = doc.get(section)
            if not isinstance(tables, list):
                continue
            for i, table in enumerate(tables):
                if isinstance(table, dict):
                    for field, value in values.items():
                        out.set(f"{section}[{i}].{field}", value)
                    if self.variant == "cubic" and "ssthresh_on_loss" in table:
                        out.set(f"{section}[{i}].ssthresh_on_loss", CUBIC_SSTHRESH)
        return out


def parse(spec: str, option: str = "--tcp") -> TcpProfile:
    """The profile ``spec`` names (module docs); a bad one is a :class:`ScenarioError` whose
    one line names ``option`` and what is wrong."""

    def bad(message: str) -> ScenarioError:
        return ScenarioError(f"{message} (expected VARIANT[+sack][+ts][+hystart], VARIANT one of "
                             f"{', '.join(VARIANTS)}; e.g. cubic+sack+ts)", field=option)

    tokens = [t.strip().lower() for t in spec.split("+")]
    if any(not t for t in tokens):
        raise bad(f"empty token in {spec[:60]!r}")
    variants = [t for t in tokens if t in VARIANTS]
    for t in tokens:
        if t not in VARIANTS and t not in FLAGS:
            raise bad(f"unknown token {t[:40]!r}")
    if not variants:
        raise bad(f"no TCP variant in {spec[:60]!r}")
    if len(variants) > 1:
        raise bad(f"{variants[0]!r} given twice" if variants[0] == variants[1] else
                  f"two variants, {variants[0]!r} and {variants[1]!r}")
    for flag in FLAGS:
        if tokens.count(flag) > 1:
            raise bad(f"{flag!r} given twice")
    chosen = {FLAGS[t]: True for t in tokens if t in FLAGS}
    try:
        return TcpProfile(variants[0], **chosen)
    except ValueError as exc:
        raise ScenarioError(str(exc), field=option) from None


def of(tcp: TcpProfile | str | None) -> TcpProfile | None:
    """A study's ``tcp`` argument as a profile: a :class:`TcpProfile`, a spec to :func:`parse`, or ``None``."""
    return parse(tcp, option="tcp") if isinstance(tcp, str) else tcp
