"""Development conversation (English): Omar, a bus driver who trains as a paramedic, talks with his friend
Jo over 2022-2023.

Written after the thesaurus, time-aware ranking and packing of issue 33 were done, and not tuned on:
its figures (benchmarks/RESULTS-recall.md) are the nearest thing here to a held-out conversation.
"""

from __future__ import annotations

A, B = "Omar", "Jo"

SESSIONS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("7:15 pm on 3 March, 2022", [
        ("o1", A, "Twelve years driving the number 38 bus and I still love the early shift."),
        ("o2", A, "My daughter Layla started violin lessons, the whole flat sounds like a cat fight."),
        ("o3", B, "Ha! Does she like it though?"),
        ("o4", A, "She adores it. Her teacher is a retired orchestra player called Mrs Okafor."),
        ("o5", A, "We live in Croydon, near the tram stop, in a two-bedroom place above a chemist."),
    ]),
    ("8:30 pm on 17 April, 2022", [
        ("o6", A, "Last Thursday a passenger collapsed on my bus and I did CPR until the ambulance came."),
        ("o7", B, "Oh my god. Is he alright?"),
        ("o8", A, "He survived. The crew said the compressions saved him. I can't stop thinking about it."),
        ("o9", A, "My wife Samira got her driving licence on the third attempt, she was so proud."),
    ]),
    ("6:00 pm on 29 May, 2022", [
        ("o10", A, "I've applied for the paramedic science course at Kingston, it starts in September."),
        ("o11", A, "Samira says we can manage on her salary from the pharmacy if I drop to part-time driving."),
        ("o12", A, "Layla played her first concert at school yesterday, a Vivaldi piece."),
    ]),
    ("9:10 pm on 12 September, 2022", [
        ("o13", A, "First week of university done! I'm the oldest in my cohort by fifteen years."),
        ("o14", A, "I only drive the bus on weekends now."),
        ("o15", A, "We adopted a tortoise called Sultan from a neighbour who emigrated."),
    ]),
    ("7:45 pm on 20 November, 2022", [
        ("o16", A, "I failed the anatomy exam, missed it by two marks. Resit is in January."),
        ("o17", A, "Layla switched from violin to cello, she says it suits her better."),
        ("o18", A, "My knee has been killing me, the GP sent me for an MRI."),
    ]),
    ("8:20 pm on 15 January, 2023", [
        ("o19", A, "I passed the anatomy resit with 71 percent!"),
        ("o20", A, "The MRI showed a small meniscus tear, so physio twice a week."),
        ("o21", A, "We're moving to Sutton in March, a house with a garden for Sultan."),
    ]),
    ("5:30 pm on 2 April, 2023", [
        ("o22", A, "We moved last weekend. Sultan already has a favourite corner under the apple tree."),
        ("o23", A, "My first placement is with the London Ambulance Service in Merton."),
        ("o24", A, "Samira became the pharmacy manager, she runs the whole branch now."),
    ]),
    ("9:00 pm on 25 June, 2023", [
        ("o25", A, "I stopped driving the bus completely. Placement and study take every hour."),
        ("o26", A, "On placement I delivered a baby in the back of an ambulance on Tuesday!"),
        ("o27", A, "Layla got into the county youth orchestra with her cello."),
    ]),
]

QA: list[dict[str, object]] = [
    {"question": "What happened when a passenger had a heart problem on Omar's bus?",
     "answer": "he did CPR until the ambulance came; the man survived", "evidence": ["o6", "o8"], "category": "multi"},
    {"question": "When did the passenger collapse on the bus?", "answer": "Thursday 14 April 2022",
     "evidence": ["o6"], "category": "date"},
    {"question": "What instrument does Layla play?", "answer": "cello (she started on violin)",
     "evidence": ["o17"], "category": "changed"},
    {"question": "Where does Omar's family live?", "answer": "a house in Sutton (before: Croydon)",
     "evidence": ["o22"], "category": "changed"},
    {"question": "What is Omar studying?", "answer": "paramedic science at Kingston",
     "evidence": ["o10"], "category": "single"},
    {"question": "What animal did the family take in?", "answer": "a tortoise called Sultan",
     "evidence": ["o15"], "category": "reworded"},
    {"question": "How did Omar do in his anatomy test?", "answer": "failed by two marks, passed the resit with 71%",
     "evidence": ["o16", "o19"], "category": "multi"},
    {"question": "What did the scan of Omar's knee show?", "answer": "a small meniscus tear",
     "evidence": ["o20"], "category": "reworded"},
    {"question": "What does Samira do for work?", "answer": "pharmacy manager (she worked at the pharmacy before)",
     "evidence": ["o24"], "category": "changed"},
    {"question": "When did Layla play her first school concert?", "answer": "28 May 2022",
     "evidence": ["o12"], "category": "date"},
    {"question": "Who teaches Layla music?", "answer": "Mrs Okafor, a retired orchestra player",
     "evidence": ["o4"], "category": "reworded"},
    {"question": "Does Omar still drive buses?", "answer": "no, he stopped completely in 2023",
     "evidence": ["o25"], "category": "changed"},
    {"question": "Where is Omar's first placement?", "answer": "London Ambulance Service in Merton",
     "evidence": ["o23"], "category": "single"},
    {"question": "When did the family move house?", "answer": "late March 2023",
     "evidence": ["o22"], "category": "date"},
    {"question": "What surprising thing happened in the back of an ambulance?", "answer": "he delivered a baby",
     "evidence": ["o26"], "category": "single"},
    {"question": "When did Samira pass her driving test?", "answer": "spring 2022 (third attempt)",
     "evidence": ["o9"], "category": "date"},
]
