"""Which card goes into which kind of slot: a PCIe card in a PCIe slot, an M.2 drive in an M.2 socket,
an SXM module in an SXM bay. Edits refuse the rest; a plan file that holds one gets an error finding."""

from __future__ import annotations

from rackplanner.core.catalog.parts import Drive, Gpu, Nic, Part, Slot


def card_slot_problem(part: Part, slot: Slot) -> str | None:
    """Why ``part`` cannot go into ``slot`` (None when it can)."""
    if not isinstance(part, Gpu | Nic | Drive):
        return f"{part.model} is not a card, drive or GPU module"
    if slot.kind == "m2":
        if isinstance(part, Drive) and part.form_factor.startswith("m.2"):
            return None
        return f"{slot.label} is an M.2 socket; {part.model} does not go there"
    if slot.kind == "sxm":
        if isinstance(part, Gpu) and part.form_factor == "sxm":
            return None
        return f"{slot.label} is an SXM bay; it takes SXM GPU modules only, not {part.model}"
    if isinstance(part, Drive) and part.form_factor != "aic":
        form = part.form_factor.upper().replace("IN", " in")
        article = "an" if form[0] in "AEM" else "a"  # an M.2, an E1.S; a U.2, a 2.5 in
        return f"{part.model} is {article} {form} drive, not a PCIe card"
    if isinstance(part, Gpu) and part.form_factor != "pcie":
        return f"{part.model} is an {part.form_factor.upper()} module, not a PCIe card"
    return None
