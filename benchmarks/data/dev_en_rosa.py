"""Development conversation (English): Rosa, a chemistry teacher who opens a bakery, talks with her friend
Jo over ten months of 2023-2024.

Written apart from dev_en_dana.py and dev_en_leo.py (another writer's facts, another small-talk pool in
benchmarks/data/build_dev.py, more of it, both speakers saying things): facts that change (job, home,
her husband's work, where her sister lives), questions worded apart from the evidence (skin specialist
for dermatologist, animal doctor for vet, pet for parrot, newspaper for the Yorkshire Post), dates said
relatively ("last week", "yesterday") and facts told over two sessions.
"""

from __future__ import annotations

A, B = "Rosa", "Jo"

SESSIONS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("4:05 pm on 6 September, 2023", [
        ("r1", A, "I finally saw a dermatologist about the rash on my arms. She said it's eczema, probably from "
                  "stress."),
        ("r2", B, "Stress again! Is school really that bad this year?"),
        ("r3", A, "I teach chemistry at Hillcrest High and this term I have five classes of sixteen-year-olds."),
        ("r4", A, "Tomas and I are still renting the tiny flat above the laundromat on Kirkstall Road."),
        ("r5", A, "Our cat Pickle sleeps on the warm dryer vents downstairs all afternoon."),
        ("r6", B, "My brother says teaching burns everyone out within ten years."),
    ]),
    ("11:20 am on 21 October, 2023", [
        ("r7", A, "Tomas gave me a sourdough starter for my birthday, and I named it Gerald."),
        ("r8", A, "I've been baking every weekend since. The first loaf was as flat as a pancake."),
        ("r9", A, "The rash is calmer since I started the cream the dermatologist prescribed."),
        ("r10", A, "My sister Ines is moving back from Lisbon next month."),
        ("r11", B, "Will she stay with you two?"),
        ("r12", A, "No way, the flat is far too small. She'll stay with our parents in Harrogate."),
    ]),
    ("6:45 pm on 2 December, 2023", [
        ("r13", A, "Ines arrived last week with three suitcases and a grey parrot called Captain."),
        ("r14", A, "I sold loaves at the school Christmas fair and raised 140 pounds for the science club."),
        ("r15", A, "I'm seriously thinking about quitting teaching to open a bakery. Tomas is nervous about money."),
        ("r16", B, "That's a big leap. What would you call it?"),
        ("r17", A, "Gerald's, after the starter. Ines laughed for five minutes."),
    ]),
    ("9:30 am on 14 January, 2024", [
        ("r18", A, "I handed in my notice at Hillcrest yesterday. My last day will be just before Easter."),
        ("r19", A, "The bank approved a business loan of twenty thousand pounds, so the shop can happen."),
        ("r20", A, "Pickle had two teeth pulled at the vet on Friday. He's grumpy but fine."),
        ("r21", A, "I started running again, three mornings a week along the canal."),
        ("r22", B, "My bank turned my loan down last year, they're so strict now."),
    ]),
    ("3:15 pm on 25 February, 2024", [
        ("r23", A, "We signed the lease on a shop on Otley Road. It used to be a florist."),
        ("r24", A, "Tomas paints the walls sage green every evening after his office job."),
        ("r25", A, "Ines found work as a tour guide at the Royal Armouries."),
        ("r26", A, "The eczema flared up again with all the flour dust, so the dermatologist switched me to a "
                   "stronger cream."),
    ]),
    ("8:00 pm on 6 April, 2024", [
        ("r27", A, "Gerald's opened on Saturday! We sold out of cinnamon buns by ten in the morning."),
        ("r28", A, "My last class at Hillcrest was on Thursday, and the students gave me a card shaped like a "
                   "beaker."),
        ("r29", B, "That's so sweet. Do you miss them?"),
        ("r30", A, "Already, yes. But I don't miss marking."),
        ("r31", A, "We moved out of the laundromat flat into the two rooms above the bakery."),
    ]),
    ("7:40 am on 19 May, 2024", [
        ("r32", A, "I hired Felix, a quiet nineteen-year-old who used to work at a pizza place."),
        ("r33", A, "Pickle sits in the shop window now and customers take photos of him."),
        ("r34", A, "I ran the Leeds 10K last Sunday in fifty-eight minutes."),
        ("r35", A, "Ines and Captain moved in with her girlfriend Maya in York."),
    ]),
    ("5:50 pm on 30 June, 2024", [
        ("r36", A, "A critic from the Yorkshire Post wrote that our rye was 'quietly perfect'."),
        ("r37", A, "Felix is head baker on the morning shift now; I do the afternoons and the books."),
        ("r38", A, "Tomas quit the office to do the deliveries on a cargo bike."),
        ("r39", A, "And my skin is finally clear, the stronger cream worked."),
    ]),
]

QA: list[dict[str, object]] = [
    {"question": "What did the skin specialist say about Rosa's rash?", "answer": "eczema, probably from stress",
     "evidence": ["r1"], "category": "reworded"},
    {"question": "What is Rosa's job?", "answer": "she runs her bakery, Gerald's (she used to teach chemistry)",
     "evidence": ["r18", "r27"], "category": "changed"},
    {"question": "Where do Rosa and Tomas live?", "answer": "above the bakery (before: above a laundromat)",
     "evidence": ["r31"], "category": "changed"},
    {"question": "When did Ines arrive from Lisbon?", "answer": "late November 2023",
     "evidence": ["r13"], "category": "date"},
    {"question": "What is the name of Rosa's sourdough starter?", "answer": "Gerald",
     "evidence": ["r7"], "category": "single"},
    {"question": "How much did Rosa raise at the Christmas fair?", "answer": "140 pounds",
     "evidence": ["r14"], "category": "single"},
    {"question": "When did the bakery open?", "answer": "Saturday 30 March 2024",
     "evidence": ["r27"], "category": "date"},
    {"question": "How did Rosa's eczema change after she started baking?",
     "answer": "it flared with flour dust; a stronger cream cleared it", "evidence": ["r26", "r39"],
     "category": "multi"},
    {"question": "What pet does Ines have?", "answer": "a grey parrot called Captain",
     "evidence": ["r13"], "category": "reworded"},
    {"question": "Why did the cat go to the animal doctor?", "answer": "to have two teeth pulled",
     "evidence": ["r20"], "category": "reworded"},
    {"question": "How did Rosa pay for the shop?", "answer": "a £20,000 business loan",
     "evidence": ["r19"], "category": "reworded"},
    {"question": "Who is Felix and what does he do?", "answer": "her first hire, now head baker mornings",
     "evidence": ["r32", "r37"], "category": "multi"},
    {"question": "When did Rosa run the 10K?", "answer": "Sunday 12 May 2024",
     "evidence": ["r34"], "category": "date"},
    {"question": "What did the newspaper say about the bread?", "answer": "the rye was 'quietly perfect'",
     "evidence": ["r36"], "category": "reworded"},
    {"question": "What colour are the walls of the shop?", "answer": "sage green",
     "evidence": ["r24"], "category": "single"},
    {"question": "What present did the students give Rosa when she left?", "answer": "a beaker-shaped card",
     "evidence": ["r28"], "category": "reworded"},
    {"question": "What does Tomas do for work?", "answer": "bakery deliveries by cargo bike (was in an office)",
     "evidence": ["r38"], "category": "changed"},
    {"question": "Where does Ines live now?", "answer": "in York with Maya (before: with their parents)",
     "evidence": ["r35"], "category": "changed"},
    {"question": "When did Rosa resign from teaching?", "answer": "13 January 2024",
     "evidence": ["r18"], "category": "date"},
    {"question": "What was the shop on Otley Road before?", "answer": "a florist",
     "evidence": ["r23"], "category": "single"},
]
