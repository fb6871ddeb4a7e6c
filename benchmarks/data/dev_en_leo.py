"""Development conversation (English): Leo, a software tester who writes a novel, over eight months of 2023.

Same shape as benchmarks/data/dev_en_dana.py.
"""

from __future__ import annotations

A, B = "Leo", "Mina"

SESSIONS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("8:20 pm on 4 March, 2023", [
        ("l1", A, "I've been writing a fantasy novel in the evenings. It's about a lighthouse keeper who can "
                  "hear the sea's memories."),
        ("l2", B, "What a lovely idea. Does the novel have a title yet?"),
        ("l3", A, "The working title is 'Salt and Lanterns'. I've written about forty pages."),
        ("l4", A, "My girlfriend Priya thinks the keeper should have a cat, so now he has a cat called Moss."),
        ("l5", A, "Work is dull. I test billing software for an insurance company."),
        ("l6", A, "I drive an old green Volvo that my grandfather gave me."),
    ]),
    ("6:00 pm on 17 April, 2023", [
        ("l7", A, "The Volvo broke down on the highway yesterday. The mechanic says the gearbox is gone."),
        ("l8", B, "Oh no. Are you going to repair it?"),
        ("l9", A, "Too expensive. I'll cycle to the office for now."),
        ("l10", A, "I joined an indoor climbing gym called Boulder Barn. My forearms are on fire."),
        ("l11", A, "Priya and I adopted a rescue greyhound named Pepper on Saturday."),
    ]),
    ("11:15 am on 2 June, 2023", [
        ("l12", A, "I proposed to Priya at the beach at sunset and she said yes! We're engaged."),
        ("l13", B, "Congratulations to you both! How did you propose?"),
        ("l14", A, "I hid the ring inside a paper lantern, like the ones in my novel."),
        ("l15", A, "I finished the first draft of Salt and Lanterns, 310 pages."),
        ("l16", A, "I bought a second-hand electric car, a blue Nissan Leaf, to replace the Volvo."),
    ]),
    ("3:40 pm on 21 August, 2023", [
        ("l17", A, "I left the insurance job. I'm a QA engineer at a small game studio called Tidepool now."),
        ("l18", B, "A game studio! That must suit you better."),
        ("l19", A, "Much better. I sent Salt and Lanterns to three literary agents last week."),
        ("l20", A, "Pepper is scared of thunderstorms, she hid under the bed all night."),
        ("l21", A, "I climbed my first V4 route at Boulder Barn."),
    ]),
    ("9:30 am on 29 October, 2023", [
        ("l22", A, "An agent named Clara Whitfield wants to represent Salt and Lanterns!"),
        ("l23", B, "That's wonderful news, Leo."),
        ("l24", A, "Priya and I set the wedding date: 14 April next year, in her parents' garden in Leeds."),
        ("l25", A, "The studio promoted me to lead tester on our new puzzle game."),
    ]),
]

QA: list[dict[str, object]] = [
    {"question": "What is the title of Leo's book?", "answer": "Salt and Lanterns", "evidence": ["l3"],
     "category": "reworded"},
    {"question": "What is Leo's job?", "answer": "QA engineer (lead tester) at the game studio Tidepool",
     "evidence": ["l17", "l25"], "category": "changed"},
    {"question": "What car does Leo drive?", "answer": "a blue Nissan Leaf (earlier a green Volvo)",
     "evidence": ["l16"], "category": "changed"},
    {"question": "When did Leo get engaged?", "answer": "late May / early June 2023", "evidence": ["l12"],
     "category": "date"},
    {"question": "What is the name of the dog Leo and Priya adopted?", "answer": "Pepper", "evidence": ["l11"],
     "category": "single"},
    {"question": "How did Leo's vehicle stop working?", "answer": "the gearbox failed on the highway",
     "evidence": ["l7"], "category": "reworded"},
    {"question": "Where does Leo go bouldering?", "answer": "Boulder Barn", "evidence": ["l10"],
     "category": "single"},
    {"question": "What progress did Leo make with his novel over the year?",
     "answer": "40 pages, draft of 310 pages, sent to agents, agent Clara Whitfield",
     "evidence": ["l3", "l15", "l19", "l22"], "category": "multi"},
    {"question": "When is the wedding going to be?", "answer": "14 April 2024 in Leeds", "evidence": ["l24"],
     "category": "date"},
    {"question": "What is the main character of Leo's story?", "answer": "a lighthouse keeper who hears the sea",
     "evidence": ["l1"], "category": "reworded"},
    {"question": "What pets appear in Leo's life and his fiction?", "answer": "the cat Moss (novel), greyhound Pepper",
     "evidence": ["l4", "l11"], "category": "multi"},
    {"question": "When did Leo start climbing?", "answer": "April 2023", "evidence": ["l10"], "category": "date"},
    {"question": "What is Pepper afraid of?", "answer": "thunderstorms", "evidence": ["l20"], "category": "single"},
    {"question": "Who is Leo's literary agent?", "answer": "Clara Whitfield", "evidence": ["l22"],
     "category": "single"},
]
