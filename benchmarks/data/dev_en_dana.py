"""Development conversation (English): Dana, a nurse, talks with her persona over six months of 2023.

Each session is a list of (speaker, text); 'F' lines are the facts questions point at (ids kept stable
by benchmarks/data/build_dev.py), the rest is small talk the builder mixes in around them.
"""

from __future__ import annotations

A, B = "Dana", "Mina"

SESSIONS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("1:56 pm on 8 January, 2023", [
        ("d1", A, "I finally got the night shift schedule sorted out. I work as a nurse at St. Mary's hospital, "
                  "mostly in the emergency ward."),
        ("d2", B, "That sounds intense. How long have you been at St. Mary's?"),
        ("d3", A, "Almost four years now. The emergency ward never gets boring."),
        ("d4", A, "My dog Biscuit kept me up all night though. He's a two-year-old beagle and he snores."),
        ("d5", A, "Oh, and I started taking piano lessons last week. I'm terrible but it's fun."),
        ("d6", A, "I live in a small flat in Portland, near the river."),
        ("d7", A, "My sister Emma lives in Denver, we call every Sunday."),
    ]),
    ("7:10 pm on 12 February, 2023", [
        ("d8", A, "Last Tuesday I went to an LGBTQ support group for the first time. I was nervous but "
                  "everyone was so kind."),
        ("d9", B, "I'm really glad you went. What made you decide to go?"),
        ("d10", A, "A friend from work told me about it. It meets in the community centre every other Tuesday."),
        ("d11", A, "Biscuit hurt his front paw chasing a squirrel, so I took him to the vet on Saturday."),
        ("d12", A, "I'm planning a trip to Japan in April. Kyoto is at the top of my list."),
    ]),
    ("10:30 am on 20 March, 2023", [
        ("d13", A, "Big news: I quit the hospital. I'm now working at a pediatric clinic downtown, "
                   "regular day hours at last."),
        ("d14", B, "Congratulations! Do you miss the emergency ward?"),
        ("d15", A, "A little, but treating kids all day is wonderful."),
        ("d16", A, "My piano teacher, Mr. Alvarez, says I should try a Chopin nocturne next."),
        ("d17", A, "I signed up for the Portland half marathon in May. Training three mornings a week."),
    ]),
    ("4:45 pm on 28 April, 2023", [
        ("d18", A, "I'm back from Kyoto! The temples were beautiful and I bought a ceramic tea bowl at a "
                   "market near Kiyomizu."),
        ("d19", B, "A tea bowl! Will you learn the tea ceremony now?"),
        ("d20", A, "Maybe. I went back to the support group on Tuesday and they asked me to help facilitate "
                   "the next meetings."),
        ("d21", A, "Biscuit's paw healed completely, he's running around like nothing happened."),
    ]),
    ("9:05 am on 3 June, 2023", [
        ("d22", A, "I ran the half marathon two weeks ago and finished in 2 hours 5 minutes!"),
        ("d23", B, "That's amazing, well done!"),
        ("d24", A, "And I moved to Seattle last weekend. The new clinic job had a branch there and I "
                   "transferred."),
        ("d25", A, "Emma flew in from Denver to help me unpack boxes for three days."),
        ("d26", A, "Mr. Alvarez gave me an online lesson yesterday, so the piano continues."),
    ]),
]

QA: list[dict[str, object]] = [
    {"question": "When did Dana go to the LGBTQ support group for the first time?", "answer": "early February 2023",
     "evidence": ["d8"], "category": "date"},
    {"question": "What is the name of Dana's dog?", "answer": "Biscuit", "evidence": ["d4"], "category": "single"},
    {"question": "Where does Dana work now?", "answer": "a pediatric clinic (in Seattle)",
     "evidence": ["d13", "d24"], "category": "changed"},
    {"question": "Which city does Dana live in?", "answer": "Seattle (earlier Portland)", "evidence": ["d24"],
     "category": "changed"},
    {"question": "Who teaches Dana to play the piano?", "answer": "Mr. Alvarez", "evidence": ["d16"],
     "category": "single"},
    {"question": "What happened to Biscuit's paw and did it get better?", "answer": "hurt chasing a squirrel, healed",
     "evidence": ["d11", "d21"], "category": "multi"},
    {"question": "What souvenir did Dana bring home from her holiday?", "answer": "a ceramic tea bowl",
     "evidence": ["d18"], "category": "reworded"},
    {"question": "How long did it take Dana to finish the race?", "answer": "2 hours 5 minutes",
     "evidence": ["d22"], "category": "reworded"},
    {"question": "When did Dana move to Seattle?", "answer": "late May 2023", "evidence": ["d24"],
     "category": "date"},
    {"question": "What role does Dana have in the supporting groups she attends?", "answer": "she helps facilitate",
     "evidence": ["d20"], "category": "reworded"},
    {"question": "Where does Dana's sister live?", "answer": "Denver", "evidence": ["d7"], "category": "single"},
    {"question": "What did Dana do about the trip to Japan, from planning to return?",
     "answer": "planned Kyoto for April, went, came back with a tea bowl", "evidence": ["d12", "d18"],
     "category": "multi"},
    {"question": "When did Dana quit the hospital job?", "answer": "March 2023", "evidence": ["d13"],
     "category": "date"},
    {"question": "How often does Dana train for running?", "answer": "three mornings a week", "evidence": ["d17"],
     "category": "single"},
    {"question": "Which musician's piece should Dana try next?", "answer": "Chopin (a nocturne)",
     "evidence": ["d16"], "category": "reworded"},
]
