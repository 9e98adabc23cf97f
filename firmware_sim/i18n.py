"""The keypad's 2x16 texts in English, Danish, Norwegian, German and Russian.

The keypad has no gettext: its texts are hand-abbreviated per language to fit 16 characters, so
they live in this table (stdlib only; the keypad extra needs no Babel). Message ids are the
English texts, with ``{name}`` fields filled in after translation. Keys stay where they are;
the screens show the local seat letters (Danish/Norwegian Ø and V, German O, Russian С В Ю З).
Strains keep the international letters C D H S NT (contracts stay unambiguous).

The display is assumed to have a Western European + Cyrillic character ROM (e.g. an HD44780
clone with the European/Cyrillic font table): ``CHARSET`` lists what it may show.

Every translation here needs a native bridge player's review; see ``REVIEW``.
"""

from __future__ import annotations

from typing import Final

from protocol import languages

LANGUAGES: Final = tuple(languages.LANGUAGES)
SOURCE: Final = languages.SOURCE
#: Characters the LCD shows besides printable ASCII.
CHARSET: Final = frozenset(
    "ÆØÅæøåÄÖÜäöüßАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя"
)

#: Seat letters as clubs write them (the keys stay 1=N 2=E 3=S 4=W, as in protocol/keys.py).
SEATS: Final[dict[str, dict[str, str]]] = languages.SEAT_LETTERS

#: English id -> (da, nb, de, ru). Each must fit 16 characters with its fields filled in.
TEXTS: Final[dict[str, tuple[str, str, str, str]]] = {
    "Not possible": ("Ikke muligt", "Ikke mulig", "Nicht möglich", "Невозможно"),
    "{tricks} not possible": (
        "{tricks} ikke muligt",
        "{tricks} ikke mulig",
        "{tricks} unmöglich",
        "{tricks} невозможно",
    ),
    "Lead 1C 2D 3H 4S": (
        "Udsp 1C 2D 3H 4S",
        "Utsp 1C 2D 3H 4S",
        "Aus 1C 2D 3H 4S",
        "Ход 1C 2D 3H 4S",
    ),
    "Card 2-9 0 11-14": (
        "Kort 2-9 0 11-14",
        "Kort 2-9 0 11-14",
        "Karte 2-9 0 1x",
        "Карта 2-9 0 1x",
    ),
    "B{board} conflict": (
        "S{board} konflikt",
        "S{board} konflikt",
        "B{board} Konflikt",
        "С{board} конфликт",
    ),
    "TD is called": ("TL er tilkaldt", "TL er tilkalt", "TL ist gerufen", "Судья вызван"),
    "EW rejected": ("ØV afviste", "ØV avviste", "OW lehnt ab", "ВЗ отклонили"),
    "ENT=continue": ("ENT=fortsæt", "ENT=fortsett", "ENT=weiter", "ENT=далее"),
    "Pair again": ("Par igen", "Koble til igjen", "Neu koppeln", "Подключить снова"),
    "Pairing refused": ("Parring afvist", "Kobling avvist", "Code abgelehnt", "Отказ связи"),
    "Refused: {code}": ("Afvist: {code}", "Avvist: {code}", "Abgelehnt: {code}", "Отказ: {code}"),
    "Refused": ("Afvist", "Avvist", "Abgelehnt", "Отказ"),
    "Round not done": ("Runde ikke slut", "Runden uferdig", "Runde läuft noch", "Раунд не окончен"),
    "T{table} Pair code:": (
        "B{table} Parkode:",
        "B{table} Kode:",
        "T{table} Code:",
        "С{table} Код:",
    ),
    "T{table} Pairing...": (
        "B{table} Parrer...",
        "B{table} Kobler...",
        "T{table} Koppeln...",
        "С{table} Связь...",
    ),
    "Connecting...": ("Forbinder...", "Kobler til...", "Verbinde...", "Соединение..."),
    "No link yet": ("Ikke forbundet", "Ikke tilkoblet", "Keine Verbindung", "Нет связи"),
    "Wait for round 1": ("Vent på runde 1", "Vent på runde 1", "Warten: Runde 1", "Ждите раунд 1"),
    "ENT=OK *=TD": ("ENT=OK *=TL", "ENT=OK *=TL", "ENT=OK *=TL", "ENT=ОК *=судья"),
    "No boards": ("Ingen spil", "Ingen spill", "Keine Boards", "Нет сдач"),
    "Saved, sending": ("Gemt, sender", "Lagret, sender", "Gesp., sende", "Сохр., отправка"),
    "0-7=enter *=TD": ("0-7=indtast *=TL", "0-7=inn *=TL", "0-7=Eingabe *=TL", "0-7=ввод *=судья"),
    "Rejected ENT=fix": ("Afvist ENT=ret", "Avvist ENT=rett", "Abgel. ENT=korr", "Откл. ENT=испр"),
    "ENT=EW confirm": ("ENT=ØV bekræft", "ENT=ØV bekreft", "ENT=OW bestätigt", "ENT=ВЗ подтв."),
    "Conflict: TD": ("Konflikt: TL", "Konflikt: TL", "Konflikt: TL", "Конфликт: судья"),
    "B{board} contract": (
        "S{board} kontrakt",
        "S{board} kontrakt",
        "B{board} Kontrakt",
        "С{board} контракт",
    ),
    "Level 1-7 0=pass": ("Trin 1-7 0=pas", "Trinn 1-7 0=pass", "Höhe 1-7 0=Passe", "Ур. 1-7 0=пас"),
    "Decl 1N 2E 3S 4W": ("Spf 1N 2Ø 3S 4V", "Spf 1N 2Ø 3S 4V", "AS 1N 2O 3S 4W", "Раз 1С 2В 3Ю 4З"),
    "Result: {entry}_": (
        "Resultat: {entry}_",
        "Resultat: {entry}_",
        "Ergebnis: {entry}_",
        "Итог: {entry}_",
    ),
    "Tricks 0-13: {entry}_": (
        "Stik 0-13: {entry}_",
        "Stikk 0-13: {entry}_",
        "Stiche 0-13: {entry}_",
        "Взятки 0-13: {entry}_",
    ),
    "ENT=send BK=edit": (
        "ENT=send BK=ret",
        "ENT=send BK=rett",
        "ENT=send BK=korr",
        "ENT=отпр BK=испр",
    ),
    "Sending...": ("Sender...", "Sender...", "Sende...", "Отправка..."),
    "Saved, no link": (
        "Gemt, ingen net",
        "Lagret, offline",
        "Gesp., kein Netz",
        "Сохр., нет связи",
    ),
    "EW:ENT=OK BK=no": (
        "ØV:ENT=OK BK=nej",
        "ØV:ENT=OK BK=nei",
        "ENT=ja BACK=nein",
        "ВЗ:ENT=да BK=нет",
    ),
    "EW PIN, then ENT": ("ØV PIN, så ENT", "ØV PIN, så ENT", "OW PIN, dann ENT", "ВЗ: PIN и ENT"),
    "R{round} done {done}/{total}": (
        "R{round} færdig {done}/{total}",
        "R{round} ferdig {done}/{total}",
        "R{round} fertig {done}/{total}",
        "Р{round} готово {done}/{total}",
    ),
    "ENT=next round": ("ENT=næste runde", "ENT=neste runde", "ENT=nächste Rd.", "ENT=след. раунд"),
    "Last round ^v": ("Sidste runde ^v", "Siste runde ^v", "Letzte Runde ^v", "Последний раунд"),
    "ENT=boards ^v": ("ENT=spil ^v", "ENT=spill ^v", "ENT=Boards ^v", "ENT=сдачи ^v"),
    "R{round} done, wait": (
        "R{round} færdig, vent",
        "R{round} ferdig, vent",
        "R{round} Ende, warte",
        "Р{round} конец, ждите",
    ),
    "for the TD": ("på TL", "på TL", "auf den TL", "судью"),
    "ENT=auction": ("ENT=meldinger", "ENT=meldinger", "ENT=Reizung", "ENT=торговля"),
    "B{board} ENT=auction": (
        "S{board} ENT=meld.",
        "S{board} ENT=meld.",
        "B{board} ENT=Reiz.",
        "С{board} ENT=торг.",
    ),
    "Pair {pair}>T{table} {side}": (
        "Par {pair}>B{table} {side}",
        "Par {pair}>B{table} {side}",
        "Paar {pair}>T{table} {side}",
        "Пара {pair}>С{table} {side}",
    ),
    "Pair {pair} out": (
        "Par {pair} over",
        "Par {pair} over",
        "Paar {pair} Pause",
        "Пара {pair} отдых",
    ),
    "Call the TD?": ("Tilkald TL?", "Tilkall TL?", "TL rufen?", "Вызвать судью?"),
    "ENT=yes BACK=no": (
        "ENT=ja BACK=nej",
        "ENT=ja BACK=nei",
        "ENT=ja BACK=nein",
        "ENT=да BACK=нет",
    ),
    "Calling the TD": ("Tilkalder TL", "Tilkaller TL", "Rufe den TL", "Вызов судьи"),
    "N/S": ("N-S", "N/S", "N/S", "С/Ю"),
    "NS": ("NS", "NS", "NS", "СЮ"),
    "EW": ("ØV", "ØV", "OW", "ВЗ"),
    "T{table}": ("B{table}", "B{table}", "T{table}", "С{table}"),
    "B{board}": ("S{board}", "S{board}", "B{board}", "С{board}"),
    "R{round}": ("R{round}", "R{round}", "R{round}", "Р{round}"),
    "missing": ("mangler", "mangler", "fehlt", "нет"),
    "entered": ("indtastet", "lagt inn", "eingegeben", "введено"),
    "rejected": ("afvist", "avvist", "abgelehnt", "отклонено"),
    "confirmed": ("bekræftet", "bekreftet", "bestätigt", "подтверждено"),
    "td pending": ("venter på TL", "venter på TL", "wartet auf TL", "ждёт судью"),
    "not played": ("ikke spillet", "ikke spilt", "nicht gespielt", "не сыграна"),
    "adjusted": ("justeret", "justert", "berichtigt", "присуждено"),
    "conflict": ("konflikt", "konflikt", "Konflikt", "конфликт"),
    # The auction and the deal
    "Insufficient bid": ("For lavt bud", "For lavt bud", "Gebot zu niedrig", "Недостат. заявка"),
    "No X of partner": (
        "Ej X af makker",
        "Ikke X av makker",
        "Kein X v. Partn.",
        "Нельзя X партн.",
    ),
    "Already doubled": ("Allerede doblet", "Allerede doblet", "Schon kontriert", "Уже контра"),
    "No bid to double": (
        "Intet bud for X",
        "Ingen bud for X",
        "Kein Gebot für X",
        "Нет заявки для X",
    ),
    "No X to redouble": ("Ingen X for XX", "Ingen X for XX", "Kein X für XX", "Нет X для XX"),
    "Not your XX": ("Ikke jeres XX", "Ikke deres XX", "Nicht euer XX", "Не ваша XX"),
    "1C 2D 3H 4S 5NT": ("1C 2D 3H 4S 5NT", "1C 2D 3H 4S 5NT", "1C 2D 3H 4S 5NT", "1C 2D 3H 4S 5NT"),
    "Call first": ("Meld først", "Meld først", "Erst bieten", "Сначала заявка"),
    "B{board} auction": (
        "S{board} meldinger",
        "S{board} meldinger",
        "B{board} Reizung",
        "С{board} торговля",
    ),
    "{seat}? ENT=none": (
        "{seat}? ENT=ingen",
        "{seat}? ENT=ingen",
        "{seat}? ENT=keine",
        "{seat}? ENT=нет",
    ),
    "{seat}? 0=P *=X ^!": (
        "{seat}? 0=P *=X ^!",
        "{seat}? 0=P *=X ^!",
        "{seat}? 0=P *=X ^!",
        "{seat}? 0=пас *=X ^!",
    ),
    "1: 1J 2Q 3K 4A": ("1: 1B 2D 3K 4E", "1: 1J 2D 3K 4E", "1: 1B 2D 3K 4A", "1: 1В 2Д 3К 4Т"),
    "Keyed already": ("Allerede tastet", "Allerede tastet", "Schon getippt", "Уже введено"),
    "13 cards: ENT": ("13 kort: ENT", "13 kort: ENT", "13 Karten: ENT", "13 карт: ENT"),
    "13 cards a hand": (
        "13 kort pr. hånd",
        "13 kort per hånd",
        "13 Karten/Hand",
        "13 карт на руке",
    ),
    "Card in 2 hands": (
        "Kort på 2 hænder",
        "Kort på 2 hender",
        "Karte doppelt",
        "Карта на 2 руках",
    ),
    "Not 52": ("Ikke 52 kort", "Ikke 52 kort", "Nicht 52 Karten", "Не 52 карты"),
    "{count}/13 ENT=suit": (
        "{count}/13 ENT=farve",
        "{count}/13 ENT=farge",
        "{count}/13 ENT=Farbe",
        "{count}/13 ENT=масть",
    ),
    "Deal stored": ("Fordeling gemt", "Fordeling lagret", "Verteilung gesp.", "Расклад сохранён"),
    "Deal confirmed": ("Fordeling OK", "Fordeling OK", "Verteilung OK", "Расклад верен"),
    "Deal differs: TD": ("Afviger: TL", "Avviker: TL", "Abweichung: TL", "Не совпал: судья"),
    "B{board} deal": (
        "S{board} fordeling",
        "S{board} fordeling",
        "B{board} Verteilung",
        "С{board} расклад",
    ),
    "Auction differs": ("Meld. afviger", "Meld. avviker", "Reizung anders", "Торговля иная"),
    "ENT=deal 0-7=res": (
        "ENT=ford 0-7=res",
        "ENT=ford 0-7=res",
        "ENT=Vert 0-7=Erg",
        "ENT=раскл. 0-7",
    ),
}

#: Texts we are least sure of (abbreviations and wording): for the native speakers' review.
REVIEW: Final = (
    "da/nb 'S{board}' for board (spil/spill) and 'B{table}' for table (bord): clash with "
    "S = Syd/Sør only in the seat column",
    "ru 'С{board}' (сдача) and 'С{table}' (стол) share a letter with С = Север",
    "de 'AS' (Alleinspieler) for declarer, 'Höhe' for the level, 'Abgel.' for rejected",
    "ru 'Ур.' for the level, 'Сохр.' for saved, 'Раз' for declarer",
    "ru 'Итог' for the relative result entry",
    "de 'ENT=nächste Rd.' (Runde) and 'ENT=ja BACK=nein' without OW, to fit 16 characters",
    "da 'Udsp', nb 'Utsp', de 'Aus' (Ausspiel), ru 'Ход' for the opening lead",
    "the move screen 'Pair 5>T4 EW' (pair 5 to table 4, E/W) and a sit-out as da/nb 'over' "
    "(oversidder), de 'Pause', ru 'отдых' (пропуск does not fit beside a pair 10NS)",
)


def text(lang: str, message: str, **fields: object) -> str:
    """``message`` in ``lang`` (English for an unknown language or text), fields filled in."""
    index = LANGUAGES.index(lang) - 1 if lang in LANGUAGES else -1
    entry = TEXTS.get(message)
    shown = entry[index] if entry is not None and index >= 0 else message
    return shown.format(**fields) if fields else shown


def seat(lang: str, letter: str) -> str:
    """A seat's local letter ("E" is "Ø" in Danish)."""
    return SEATS.get(lang, SEATS[SOURCE]).get(letter, letter)
