"""`station camera accuracy --game NAME`: each game's suite, run by the game's declaration,
scored with its bars and printed per deck style, dice set and perturbation."""

from __future__ import annotations

import json

from station.cli import main


def test_the_pai_gow_suite_scores_doors_and_the_tray_per_dice_set(capsys):
    rc = main(["camera", "accuracy", "--game", "paigow", "--frames", "3", "--presets", "clean",
               "--dice-presets", "clean,noise", "--dice-sets", "casino,rounded", "--json"])
    out = json.loads(capsys.readouterr().out)
    doors, tray = out["tables"]
    assert "doors" in doors["title"] and "tray" in tray["title"]
    # the doors were read by the card reader: 3 frames x 4 doors, the tray zone too
    assert doors["rows"][0]["zone_states"] == 3 * 5
    sets = {r["dice_set"] for r in tray["rows"]} - {"TOTAL"}
    assert sets == {"casino", "rounded"}
    assert {r["preset"] for r in tray["rows"] if r["dice_set"] == "casino"} == {"clean", "noise", "ALL", "STUDIO"}
    total = tray["rows"][-1]
    assert total["trays"] == 2 * 2 * 3 and total["wrong_face"] == 0
    assert rc == (0 if out["pass"] else 1)


def test_the_si_zhi_dao_suite_reports_what_the_recogniser_makes_of_seats(capsys):
    rc = main(["camera", "accuracy", "--game", "sizhidao", "--frames", "2", "--presets", "clean", "--json"])
    out = json.loads(capsys.readouterr().out)
    (seats,) = out["tables"]
    assert "S1 S2 S3 S4 S5 S6 S7" in seats["title"]
    assert seats["rows"][0]["zone_states"] == 2 * 7
    assert seats["rows"][-1]["wrong_identity"] == 0
    assert rc == (0 if out["pass"] else 1)


def test_a_game_that_is_not_one_is_a_clear_error(capsys):
    assert main(["camera", "accuracy", "--game", "baccarat", "--frames", "1"]) == 2
    assert "unknown game 'baccarat'" in capsys.readouterr().err
