"""Law 77 scores worked out by hand, with the working in each test id."""

import pytest

from protocol.bridge import Contract, InvalidTricks, contract_score

NV, VUL = False, True

# (contract, tricks taken, vulnerable, declaring side's score, working)
HAND_CHECKED = [
    # Undoubled part-scores: trick points + 50.
    ("1C", 7, NV, 70, "1C= nv: 20+50 = 70"),
    ("1NT", 7, NV, 90, "1NT= nv: 40+50 = 90"),
    ("1NT", 8, VUL, 120, "1NT+1 vul: 40+50+30 = 120"),
    ("2C", 8, VUL, 90, "2C= vul: 40+50 = 90"),
    ("2S", 8, NV, 110, "2S= nv: 60+50 = 110"),
    ("2NT", 8, NV, 120, "2NT= nv: 70+50 = 120"),
    ("2NT", 9, VUL, 150, "2NT+1 vul: 70+50+30 = 150"),
    ("3S", 9, NV, 140, "3S= nv: 90+50 = 140"),
    ("3H", 10, VUL, 170, "3H+1 vul: 90+50+30 = 170"),
    ("4C", 10, NV, 130, "4C= nv: 80+50 = 130"),
    ("4D", 11, VUL, 150, "4D+1 vul: 80+50+20 = 150"),
    ("1H", 9, NV, 140, "1H+2 nv: 30+50+2*30 = 140"),
    # Undoubled games: trick points >= 100 earn 300 nv / 500 vul.
    ("3NT", 9, NV, 400, "3NT= nv: 100+300 = 400"),
    ("3NT", 9, VUL, 600, "3NT= vul: 100+500 = 600"),
    ("3NT", 11, NV, 460, "3NT+2 nv: 100+300+2*30 = 460"),
    ("4H", 10, NV, 420, "4H= nv: 120+300 = 420"),
    ("4S", 10, VUL, 620, "4S= vul: 120+500 = 620"),
    ("4S", 11, NV, 450, "4S+1 nv: 120+300+30 = 450"),
    ("5C", 11, NV, 400, "5C= nv: 100+300 = 400"),
    ("5D", 11, VUL, 600, "5D= vul: 100+500 = 600"),
    # Slams: +500/+750 small, +1000/+1500 grand.
    ("6C", 12, NV, 920, "6C= nv: 120+300+500 = 920"),
    ("6D", 12, VUL, 1370, "6D= vul: 120+500+750 = 1370"),
    ("6H", 12, NV, 980, "6H= nv: 180+300+500 = 980"),
    ("6S", 13, VUL, 1460, "6S+1 vul: 180+500+750+30 = 1460"),
    ("6NT", 12, NV, 990, "6NT= nv: 190+300+500 = 990"),
    ("6NT", 12, VUL, 1440, "6NT= vul: 190+500+750 = 1440"),
    ("7C", 13, NV, 1440, "7C= nv: 140+300+1000 = 1440"),
    ("7S", 13, VUL, 2210, "7S= vul: 210+500+1500 = 2210"),
    ("7NT", 13, NV, 1520, "7NT= nv: 220+300+1000 = 1520"),
    ("7NT", 13, VUL, 2220, "7NT= vul: 220+500+1500 = 2220"),
    # Doubled, made: trick points x2, +50 insult, overtricks 100 nv / 200 vul.
    ("1CX", 7, NV, 140, "1CX= nv: 40+50+50 = 140"),
    ("1CX", 8, NV, 240, "1CX+1 nv: 40+50+50+100 = 240"),
    ("1CX", 8, VUL, 340, "1CX+1 vul: 40+50+50+200 = 340"),
    ("1NTX", 7, NV, 180, "1NTX= nv: 80 part+50+50 = 180"),
    ("1NTX", 8, VUL, 380, "1NTX+1 vul: 80+50+50+200 = 380"),
    ("2CX", 8, NV, 180, "2CX= nv: 80+50+50 = 180"),
    ("2DX", 8, VUL, 180, "2DX= vul: 80+50+50 = 180"),
    ("2HX", 8, NV, 470, "2HX= nv: 120 game+300+50 = 470"),
    ("2HX", 8, VUL, 670, "2HX= vul: 120+500+50 = 670"),
    ("3CX", 9, NV, 470, "3CX= nv: 120+300+50 = 470"),
    ("4SX", 10, VUL, 790, "4SX= vul: 240+500+50 = 790"),
    ("4SX", 11, NV, 690, "4SX+1 nv: 240+300+50+100 = 690"),
    ("5DX", 11, NV, 550, "5DX= nv: 200+300+50 = 550"),
    ("3NTX", 9, VUL, 750, "3NTX= vul: 200+500+50 = 750"),
    ("6NTX", 12, VUL, 1680, "6NTX= vul: 380+500+750+50 = 1680"),
    ("7NTX", 13, NV, 1790, "7NTX= nv: 440+300+1000+50 = 1790"),
    ("7SX", 13, VUL, 2470, "7SX= vul: 420+500+1500+50 = 2470"),
    # Redoubled, made: trick points x4, +100 insult, overtricks 200 nv / 400 vul.
    ("1CXX", 7, NV, 230, "1CXX= nv: 80 part+50+100 = 230"),
    ("1CXX", 8, NV, 430, "1CXX+1 nv: 80+50+100+200 = 430"),
    ("1CXX", 8, VUL, 630, "1CXX+1 vul: 80+50+100+400 = 630"),
    ("1DXX", 10, VUL, 1430, "1DXX+3 vul: 80+50+100+3*400 = 1430"),
    ("1HXX", 7, NV, 520, "1HXX= nv: 120 game+300+100 = 520"),
    ("1NTXX", 7, NV, 560, "1NTXX= nv: 160+300+100 = 560"),
    ("1NTXX", 7, VUL, 760, "1NTXX= vul: 160+500+100 = 760"),
    ("2CXX", 8, VUL, 760, "2CXX= vul: 160+500+100 = 760"),
    ("2SXX", 8, NV, 640, "2SXX= nv: 240+300+100 = 640"),
    ("3NTXX", 10, VUL, 1400, "3NTXX+1 vul: 400+500+100+400 = 1400"),
    ("6CXX", 12, NV, 1380, "6CXX= nv: 480+300+500+100 = 1380"),
    ("7NTXX", 13, VUL, 2980, "7NTXX= vul: 880+500+1500+100 = 2980"),
    # Undoubled undertricks: 50 nv / 100 vul each.
    ("4S", 9, NV, -50, "4S-1 nv: -50"),
    ("4S", 9, VUL, -100, "4S-1 vul: -100"),
    ("3NT", 6, VUL, -300, "3NT-3 vul: -3*100 = -300"),
    ("7NT", 0, NV, -650, "7NT-13 nv: -13*50 = -650"),
    ("7NT", 0, VUL, -1300, "7NT-13 vul: -13*100 = -1300"),
    # Doubled undertricks not vulnerable: 100, 200, 200, then 300 each.
    ("7NTX", 12, NV, -100, "7NTX-1 nv: -100"),
    ("7NTX", 11, NV, -300, "7NTX-2 nv: -(100+200) = -300"),
    ("7NTX", 10, NV, -500, "7NTX-3 nv: -(100+200+200) = -500"),
    ("4SX", 6, NV, -800, "4SX-4 nv: -(100+200+200+300) = -800"),
    ("7NTX", 8, NV, -1100, "7NTX-5 nv: -(500+2*300) = -1100"),
    ("7NTX", 7, NV, -1400, "7NTX-6 nv: -(500+3*300) = -1400"),
    ("7NTX", 6, NV, -1700, "7NTX-7 nv: -(500+4*300) = -1700"),
    ("7NTX", 5, NV, -2000, "7NTX-8 nv: -(500+5*300) = -2000"),
    ("7NTX", 4, NV, -2300, "7NTX-9 nv: -(500+6*300) = -2300"),
    ("7NTX", 3, NV, -2600, "7NTX-10 nv: -(500+7*300) = -2600"),
    ("7NTX", 2, NV, -2900, "7NTX-11 nv: -(500+8*300) = -2900"),
    ("7NTX", 1, NV, -3200, "7NTX-12 nv: -(500+9*300) = -3200"),
    ("7NTX", 0, NV, -3500, "7NTX-13 nv: -(500+10*300) = -3500"),
    # Doubled undertricks vulnerable: 200, then 300 each.
    ("7NTX", 12, VUL, -200, "7NTX-1 vul: -200"),
    ("7NTX", 11, VUL, -500, "7NTX-2 vul: -(200+300) = -500"),
    ("7NTX", 10, VUL, -800, "7NTX-3 vul: -(200+2*300) = -800"),
    ("7NTX", 9, VUL, -1100, "7NTX-4 vul: -(200+3*300) = -1100"),
    ("7NTX", 8, VUL, -1400, "7NTX-5 vul: -(200+4*300) = -1400"),
    ("7NTX", 7, VUL, -1700, "7NTX-6 vul: -(200+5*300) = -1700"),
    ("7NTX", 6, VUL, -2000, "7NTX-7 vul: -(200+6*300) = -2000"),
    ("7NTX", 5, VUL, -2300, "7NTX-8 vul: -(200+7*300) = -2300"),
    ("7NTX", 4, VUL, -2600, "7NTX-9 vul: -(200+8*300) = -2600"),
    ("7NTX", 3, VUL, -2900, "7NTX-10 vul: -(200+9*300) = -2900"),
    ("7NTX", 2, VUL, -3200, "7NTX-11 vul: -(200+10*300) = -3200"),
    ("7NTX", 1, VUL, -3500, "7NTX-12 vul: -(200+11*300) = -3500"),
    ("7NTX", 0, VUL, -3800, "7NTX-13 vul: -(200+12*300) = -3800"),
    # Redoubled undertricks: twice the doubled figure.
    ("7NTXX", 12, NV, -200, "7NTXX-1 nv: -2*100 = -200"),
    ("7NTXX", 11, NV, -600, "7NTXX-2 nv: -2*300 = -600"),
    ("7NTXX", 10, NV, -1000, "7NTXX-3 nv: -2*500 = -1000"),
    ("4DXX", 6, NV, -1600, "4DXX-4 nv: -2*800 = -1600"),
    ("1CXX", 0, NV, -3400, "1CXX-7 nv: -2*1700 = -3400"),
    ("7NTXX", 0, NV, -7000, "7NTXX-13 nv: -2*3500 = -7000"),
    ("7NTXX", 12, VUL, -400, "7NTXX-1 vul: -2*200 = -400"),
    ("7NTXX", 11, VUL, -1000, "7NTXX-2 vul: -2*500 = -1000"),
    ("7NTXX", 10, VUL, -1600, "7NTXX-3 vul: -2*800 = -1600"),
    ("5CXX", 7, VUL, -2200, "5CXX-4 vul: -2*1100 = -2200"),
    ("7NTXX", 0, VUL, -7600, "7NTXX-13 vul: -2*3800 = -7600"),
    # Passed out.
    ("PASS", 0, NV, 0, "PASS: 0"),
    ("PASS", 0, VUL, 0, "PASS vul: 0"),
]


@pytest.mark.parametrize(
    ("contract", "tricks", "vulnerable", "expected"),
    [pytest.param(c, t, v, e, id=working) for c, t, v, e, working in HAND_CHECKED],
)
def test_contract_score_by_hand(
    contract: str, tricks: int, vulnerable: bool, expected: int
) -> None:
    assert contract_score(contract, tricks, vulnerable) == expected
    assert contract_score(Contract.parse(contract), tricks, vulnerable) == expected


def test_the_table_is_big_enough() -> None:
    assert len(HAND_CHECKED) >= 60


@pytest.mark.parametrize("tricks", [-1, 14, 100])
def test_tricks_outside_the_deck_are_rejected(tricks: int) -> None:
    with pytest.raises(InvalidTricks) as caught:
        contract_score("4S", tricks, False)
    assert caught.value.code == "invalid_tricks"
    assert caught.value.value == tricks
    assert str(tricks) in str(caught.value)
