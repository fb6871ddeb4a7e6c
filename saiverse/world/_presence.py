"""Never talk into silence: when nobody in a building will answer, say who is where and how to reach them."""

from __future__ import annotations

from saiverse.world._world import World

ANSWERING_MODES = ("user", "auto")
"""Interaction modes in which a persona answers the user."""


def nobody_answers(world: World, building_id: str, *, lang: str = "ja") -> str:
    """The system line for a message nobody in `building_id` will answer (Japanese unless `lang` is en)."""
    here = world.building(building_id).name
    names = {b.building_id: b.name for b in world.buildings()}
    present = world.personas(building_id)
    resting = [p.name for p in present if p.interaction_mode not in ANSWERING_MODES]
    elsewhere = [(p.name, names.get(p.building_id or "", "?")) for p in world.personas()
                 if p.building_id != building_id and p.interaction_mode in ANSWERING_MODES]
    if lang == "en":
        parts = [f"Nobody here in {here} will answer."]
        if resting:
            parts.append(f"{', '.join(resting)} {'is' if len(resting) == 1 else 'are'} resting (sleep mode).")
        if elsewhere:
            parts.append("Elsewhere: " + ", ".join(f"{n} in {b}" for n, b in elsewhere) + ".")
            parts.append("To talk with someone, go to their building in the list on the left "
                         "(there, @name speaks to one of them).")
        else:
            parts.append("No persona is answering anywhere; create one or wake one in the Personas tab.")
        return " ".join(parts)
    parts = [f"{here}には返事をする人がいません。"]
    if resting:
        parts.append(f"{'、'.join(resting)}は休んでいます（sleep）。")
    if elsewhere:
        parts.append("いまいる場所: " + "、".join(f"{n}は{b}" for n, b in elsewhere) + "。")
        parts.append("話しかけるには、左の一覧からその建物へ移動してください（そこでは @名前 で一人を指名できます）。")
    else:
        parts.append("返事をするペルソナがどこにもいません。ペルソナタブで作成するか、休んでいるペルソナを起こしてください。")
    return "".join(parts)
