"""HELD OUT (never tune on it: benchmarks/data/build_heldout.py). English, LoCoMo-style: Nadia, a trainee
air traffic controller in Halifax, Nova Scotia, who learns to sail, and her friend Callum, a
physiotherapist who makes crosswords and has a young daughter with his husband Marcus, March 2023 to
July 2024. Written in session 11 by someone who had not read saiverse/memory/ nor any conversation's
misses, and measured once at first read (benchmarks/RESULTS-recall.md)."""

from __future__ import annotations

A, B = "Nadia", "Callum"

SESSIONS: list[tuple[str, str]] = [
    ("2:15 pm on 11 March, 2023", """
A: Callum! Finally a Saturday when neither of us is working.
B: Nadia! I was starting to think you lived in that tower now.
[n_job] A: Feels like it. I'm still a trainee up there at Stanfield. If I pass my checkout in the fall, I get my full licence.
B: And then you're the one telling the pilots what to do.
A: Politely. Very politely. How's the clinic?
[c_job] B: Busy. It's mostly weekend warriors with dodgy knees at the sports clinic in Bedford. Every second guy hurt himself playing hockey with his kids.
A: Ha, that sounds like job security.
B: It really is. I spent this morning teaching a dentist how to stretch his hamstrings.
A: Did he floss them too?
B: He asked if he could skip the exercises if he just took ibuprofen. No, Doug.
[c_isla] B: Isla says hi, by the way. She just turned four and she's completely obsessed with dinosaurs. She corrects me when I say brontosaurus.
A: Smart kid. Tell her Auntie Nadia says stegosaurus is the best one.
B: She'll argue with you. She's a velociraptor person.
[n_flat] A: Speaking of arguments, I'm fighting with my landlord again. My basement apartment on Agricola Street floods every time it rains.
B: Again? Didn't he fix it in the fall?
A: He put a towel down. That was the fix.
B: Nadia, you need to move.
A: I know, I know. Rents are awful though.
[c_marcus] B: Marcus would say the same. He's been running the kitchen at a seafood place on the waterfront for three years and he's still looking for a bigger flat for us.
A: How is Marcus? Still bringing home leftover chowder?
B: Every Friday. I'm going to turn into a scallop.
[n_sail_plan] A: I did something brave this week. I signed up for a sailing course on the Northwest Arm. It starts in May.
B: Sailing! You've never even been on a boat, have you?
A: The ferry to Dartmouth counts, right?
B: Absolutely not.
[c_curl] B: My brave thing is curling on Tuesday nights. Our team is called the Hog Liners and we are very, very average.
A: Love the name though.
B: The name is the best part of the team.
A: I'll come and cheer one night.
"""),
    ("7:40 pm on 16 April, 2023", """
B: Hey you. How was Easter?
[n_oma] A: Lovely. I went down to Lunenburg to see my Oma Lotte. She's ninety-one and still lives on her own in the yellow house by the harbour.
B: Ninety-one and on her own! Does she still drive?
A: She gave the car up last year, thank goodness. The neighbours take her shopping.
[n_oma_cake] A: She showed me her plum cake, the one with the yeast dough and crumble on top. She never writes anything down, so I filmed the whole thing.
B: That's a treasure, that video.
A: It is. Her hands were shaking a bit, but she still kneads better than I do.
B: You'll have to make it for us.
A: Once I get it right. Mine came out like a brick.
B: How's work? Still doing nights?
[n_nights] A: Three midnight shifts a week right now. I've got blackout curtains, foam earplugs and a fan running, and I'm usually out cold by nine in the morning.
B: That sounds brutal.
A: You get used to it. Mostly. I eat breakfast at dinner time.
[c_cross] B: I've got a new late-night habit myself. I've been constructing crosswords after Isla goes to bed. I sent my first one to the Globe and Mail last week.
A: You make them? I can barely solve them!
B: It's addictive. Finding fifteen-letter phrases that fit together is like a drug.
A: What's the theme of yours?
[c_cross_theme] B: Famous ships. There's a Bluenose in there, obviously.
A: Of course there is.
[c_bonspiel] B: Oh, and the Hog Liners won the club bonspiel last weekend! First time in the club's history a team with our record won anything.
A: No way! The average team!
B: Everyone else had the flu. We'll take it.
[c_mum] B: My mum called too. She's run the B&B in Baddeck for thirty years, and she's finally talking about selling it.
A: Really? That place is her whole life.
B: She says her knees disagree. I think she's lonely out there since Dad passed.
[n_bea] A: Big news from my side: my sister Bea is pregnant! She lives in Calgary, the baby is due in August.
B: Nadia! You're going to be an auntie for real!
A: I know! I've already bought three onesies with airplanes on them.
"""),
    ("6:05 pm on 28 May, 2023", """
A: I have to tell you about my first week on the water.
B: Please tell me you didn't fall in.
[n_capsize] A: Twice! We're in these little club dinghies, Lasers, and I tipped mine over twice on Thursday. The water in the Arm is nine degrees.
B: Nine! That's not water, that's ice with ambitions.
A: The instructor said capsizing is part of learning. I must be learning a lot.
B: Were you scared?
A: Only for a second. Then I was mostly cold and embarrassed.
B: Okay, my week was worse.
[c_subaru] B: The Subaru's transmission died on the 102 on Wednesday, in the rain, with Isla in the back singing the dinosaur song.
A: Oh no! Were you okay?
B: Fine, just stuck on the shoulder for an hour waiting for the tow truck. Isla thought it was an adventure.
A: And the car?
B: The mechanic said fixing it would cost more than it's worth. It's fourteen years old, so I guess it's retired now.
A: RIP. It was a good car.
B: It smelled like dog and we never had a dog. We bought it that way.
[c_cross_acc] B: But the good news: the Globe and Mail accepted my crossword! They're running it in the Saturday paper on the tenth of June.
A: Callum!!! That's amazing! You're a published puzzler!
B: I screamed in the clinic's staff room. A patient heard.
A: I'm buying ten copies.
B: Buy one and solve it in pen, that's all I ask.
[n_foodbank] A: I've started something new on Saturday mornings too. I sort tins and pack hampers at the Parker Street food bank before my shift.
B: That's really lovely of you.
A: It's good for me. After a week of staring at radar screens, it's nice to talk to real people.
B: Do they need more volunteers? Marcus keeps saying he wants to do something like that.
A: They always need people. Bring him along.
B: How's the plum cake going?
A: Attempt number three was edible. Oma says the dough needs more patience. So do I.
"""),
    ("8:30 pm on 2 July, 2023", """
B: Did you see it? Did you solve it?
A: The crossword? I solved about two thirds and then I cheated and asked my dad.
[c_cross_out] B: Mum bought five copies and framed one for the B&B's front hall. A solver emailed to complain that 14 across was too hard.
A: 14 across was way too hard.
B: It was supposed to be! The editor already asked for another one.
A: You're going to be famous.
B: Famous in a very small, very nerdy way.
[n_specs] A: Small drama at work. I had my aviation medical renewal and the doctor found I'm a bit short-sighted. So now I have to wear specs for every shift.
B: Nadia with glasses! I need a picture.
A: They're tortoiseshell. My trainer says I look like a librarian.
B: A librarian who runs an airport.
A: Kind of, yes.
[n_sail_pass] A: And I passed the basic sailing course! I can take a club boat out on the Arm by myself now.
B: Look at you! Sailor Nadia!
A: I still can't tie a bowline without singing the rabbit song.
B: Whatever works.
[c_marcus_tired] B: Marcus is struggling a bit. The restaurant hours are killing him. He's missed almost every one of Isla's bedtimes since Easter.
A: Oh, that's hard.
B: He's talking about learning a trade, something with normal hours. He's always liked fixing things in the house.
A: He'd be good at anything. He's so patient.
B: Not with the restaurant's dishwasher, he isn't.
A: How's life without the car?
B: Buses and borrowing our neighbour's van. It's fine for now, but we need something before winter.
A: Are you going anywhere this summer?
B: We're thinking of a week on PEI in August. Isla wants to see the red sand.
A: Red sand and ice cream. That's a perfect holiday for a four-year-old.
B: And for a thirty-six-year-old.
"""),
    ("5:20 pm on 20 August, 2023", """
A: Callum, I'm an auntie!!
B: What! When?
[n_theo] A: Bea's little boy arrived on Thursday, just after midnight. Eight pounds, two ounces, and a full head of black hair. His name is Theo.
B: Theo! That's perfect. How's Bea?
A: Tired and very happy. Her husband cried on the video call more than the baby did.
B: Are you going out to Calgary?
A: I've booked flights for September. I'm counting the days.
[c_pei] B: We just got back from Cavendish on PEI. A whole week. Isla rolled in the red sand every single day and we're still finding it in the car seats.
A: The car seats? Which car?
[c_ioniq] B: Oh, right, you haven't heard. We bought a used Hyundai Ioniq, the electric one, to replace the Subaru. Two years old and it's so quiet Isla thinks it's broken.
A: An electric! Fancy.
B: Marcus is obsessed with the charging app. He checks it like it's a stock market.
A: How's the range?
B: Good enough for PEI and back with one stop in Truro. I was nervous but it was fine.
[c_garlic] B: And we came home to forty heads of garlic waiting at the plot on the Common. I planted them in October, so it felt like a present from past me.
A: Forty! What are you going to do with forty?
B: Marcus wants to pickle half of them. Our flat is going to smell like a vampire's nightmare.
A: I'll take a few off your hands.
[c_isla_school] B: Isla starts primary on September sixth. I'm not ready. She's very ready.
A: Already? Wasn't she born like last week?
B: That's what I keep saying.
[n_checkout_prep] A: My checkout is booked for October. I'm in the simulator four times a week, and my trainer throws thunderstorms and broken radios at me for fun.
B: You'll pass. You're the calmest person I know.
A: On the outside. Inside I'm a seagull in a hurricane.
B: Ha, that's very Halifax.
"""),
    ("7:10 pm on 1 October, 2023", """
B: How was Calgary? How's baby Theo?
[n_calgary] A: Perfect. I spent five days in Calgary doing night feeds so Bea could sleep. He hiccups every time he laughs, and he grabbed my finger and wouldn't let go.
B: That's it, you're hooked now.
A: Completely. I even took him to see the mountains, well, from the car window. He slept through it.
B: Babies don't appreciate the Rockies.
A: How's Isla liking school?
[c_isla_school2] B: She loves it. Her teacher is Ms. Boudreau and Isla wants to marry her.
A: Ha! Fair enough.
B: She came home yesterday and told me that Pluto isn't a planet anymore and that I should deal with it.
A: A scientist already.
[c_mum_sold] B: Big family news. Mum sold the B&B! A couple from Ontario bought it, and she has to be out by the end of November.
A: Wow, she actually did it. How does she feel?
B: Relieved and sad at the same time. She cried when she told me, and then she asked if Halifax has a good bingo hall.
A: Halifax has excellent bingo halls.
B: That's what I told her. I think she's coming to the city.
[n_oma_fall] A: We've had a scare too. Oma slipped in her kitchen two weeks ago. Nothing broken, but she lay on the floor for an hour before the neighbour found her.
B: Oh, Nadia. That's so frightening.
A: Mum and I think she can't live alone anymore. There's a seniors' residence in Lunenburg with a view of the water, and she's thinking about it.
B: Is she okay with that idea?
A: She says she'll only go if she can bring her own teapot. That's a yes, in Oma language.
B: How's the simulator?
A: Two weeks to go. I dream about flight strips.
B: You'll be great.
A: Marcus sent me a pickled garlic jar, by the way. It's terrifying and delicious.
"""),
    ("9:00 pm on 19 November, 2023", """
A: Guess who's a real air traffic controller now?
B: No way! You passed?
[n_checkout] A: I passed my checkout on Tuesday! The examiner shook my hand and said I was "boringly safe", which is the best compliment in the job.
B: Nadia, that's incredible! I'm so proud of you!
A: I cried in the car park. Then I ate a whole pizza.
B: That's the proper way to celebrate.
A: Now I get my own shifts, no trainer behind me. It's scary and amazing.
B: Well, I spent my week in a much less fun way.
[c_kidney] B: Last Sunday, a week ago today, I passed a kidney stone. Marcus drove me to the Infirmary at three in the morning. Worst pain of my life.
A: Oh no, Callum! Are you okay now?
B: I'm fine. The nurse said it was only four millimetres. It felt like a brick.
A: You poor thing.
B: Now I drink three litres of water a day and live in the bathroom.
A: Do they know why?
B: Too much coffee and not enough water, apparently. Marcus has hidden the espresso machine.
[n_oma_move] A: And Oma moved into Harbourview last weekend, the residence in Lunenburg. She took her teapot and her sewing box and nothing else.
B: How is she settling in?
A: She's already in charge of the Thursday card games. The staff are scared of her.
B: Ha! Of course she is.
[c_mum_plan] B: My mum's decided too. She's renting an apartment in Halifax from January, near us. Isla is over the moon.
A: That's lovely. Free babysitting!
B: That is my entire plan, yes.
A: How's the crossword life?
B: The Globe took a second one. It's about Nova Scotia towns. Nobody outside the province will be able to solve it.
A: I'll finally be good at something.
"""),
    ("4:45 pm on 14 January, 2024", """
B: Happy new year, Nadia! How were the holidays in the tower?
A: You won't believe my holidays.
B: Tell me.
[n_dash8] A: On Christmas Eve, a Dash 8 coming in from Montreal lost its hydraulics. The pilot declared, and I had to clear the runway, move three other planes and get the fire trucks out. He landed fine, nobody was hurt.
B: Nadia! That's terrifying!
A: Honestly, in the moment I was totally calm. My voice was steady. I only started shaking afterwards in the break room.
B: You're like a superhero.
A: My supervisor bought me a coffee. Which in our tower is basically a medal.
B: Did anyone say thank you?
A: The pilot sent a box of chocolates to the tower on Boxing Day. We ate them in one shift.
[c_mum_arrived] B: Mum moved into her apartment on Quinpool Road on the second, two blocks from us. She's already joined a walking group and a bingo night.
A: That's fast!
B: She says she wasted thirty years making breakfast for strangers and now she wants to have fun.
A: Good for her.
B: She picks Isla up from school on Wednesdays now. They come home covered in glitter.
[n_house_hunt] A: I'm house hunting, by the way! The bank pre-approved me, and now that I'm licensed I can actually afford something.
B: Finally! Goodbye, flooded basement.
A: I'm looking in Dartmouth. It's cheaper and the drive to the airport is quicker.
B: Dartmouth is great. You'd have a harbour view, maybe.
A: That's the dream. A harbour view and a dry floor.
B: Low bar, but a good one.
B: How's Oma doing at Harbourview?
A: She won the Christmas card tournament and got a poinsettia. She's unbearable.
B: Ha! Love her.
A: How are your kidneys?
B: Behaving. I'm still drinking water like a camel.
"""),
    ("6:30 pm on 3 March, 2024", """
A: How was Isla's party? Sorry again I had to leave early for my shift.
[c_isla_party] B: She turned five on Saturday the twenty-fourth, and it was chaos. Twelve kids, a T. rex cake, and Marcus dressed up as a paleontologist with a brush and a hat.
A: I loved his hat.
B: He refuses to give it back to the costume shop.
[n_cake_party] A: Did the kids like the plum cake? I made Oma's recipe for the grown-ups, and I was so nervous.
B: Nadia, the grown-ups fought over it. Mum asked for the recipe.
A: Oma will be so pleased. I'll tell her on Sunday.
B: It was much better than the brick version.
A: Attempt number eleven. Patience, like she said.
[c_marcus_app] B: Big change for Marcus. He left the restaurant in January, and since February he's an apprentice with an electrical contractor in Burnside.
A: Really? He did it!
B: He's back at school two days a week and on job sites the rest. He's home by five every day.
A: So he's there for bedtimes now!
B: Every single one. Isla makes him read the same dinosaur book. He knows it by heart.
A: That makes me so happy.
[n_townhouse] A: My news: my offer on a townhouse in Dartmouth was accepted! Two bedrooms, a little deck, and yes, a harbour view.
B: Nadia!! You did it!
A: I get the keys on April first. I hope that's not a joke.
B: We'll help you move. The Ioniq has a surprising amount of room.
A: And the bookshelves?
B: Marcus will borrow a van from work. He has connections now.
[c_moose_offer] B: One more thing. The Mooseheads have offered me a job as their team physio. I said yes!
A: The hockey team? Callum, that's huge!
B: I'll be working with seventeen-year-olds who think they're indestructible. Should be fun.
A: When do you start?
B: Late April, after I finish with my patients at the clinic.
"""),
    ("8:15 pm on 21 April, 2024", """
B: How does it feel to be a homeowner?
[n_moved] A: Amazing. I got the keys on the first of the month, and I moved in that weekend. The first morning I watched the ferry cross the harbour from my deck with a coffee.
B: That's the dream you talked about.
A: And the floor is dry! I check it every morning out of habit.
B: Ha, old trauma.
[n_warming] A: Thank you both for the housewarming. Marcus's lobster rolls disappeared in about ten minutes.
B: He made thirty. He was very proud.
A: My new neighbours asked if he caters.
B: Don't tell him, he'll start a side business.
[c_moose_start] B: Tomorrow's a big day. I start with the Mooseheads on Monday. My last week at the clinic was full of goodbyes.
A: Nervous?
B: A little. I've been watching their games to see who limps.
A: Very professional.
[n_petrel] A: I also did something very silly. I bought a sailboat! A used twenty-two footer from a retired dentist in Chester. I'm calling her Petrel.
B: NADIA. You bought a boat and a house in the same month?
A: The boat was cheap. The dentist wanted her to go to someone who would love her.
B: Where will you keep her?
A: At a mooring in Dartmouth, ten minutes from my house. It's like it was meant to be.
[c_herald] B: My crossword news: the Chronicle Herald wants a weekly puzzle from me, every Saturday, starting in May.
A: A weekly column! That's so cool.
B: I'll be writing clues in the team bus.
A: Will there be a clue about me?
B: "Calm voice in the tower, six letters." Sure.
A: I love it.
B: How's Oma?
A: She turned ninety-two last week, and Harbourview threw her a party. She beat everyone at cards again.
B: That woman is unstoppable.
"""),
    ("7:50 pm on 9 June, 2024", """
A: So, how's life with the hockey boys?
[c_moose_life] B: Great, actually. We're in the off-season, so I'm doing the fitness testing and a lot of shoulder rehab. One of the boys cried when I told him he can skate again.
A: Aww. That must feel good.
B: It does. It's different from the clinic. They're like kids, because they are kids.
A: Are you still curling?
B: The season's over. The Hog Liners finished second to last. We had a party anyway.
A: Of course you did.
[n_first_sail] A: I took Petrel out to McNabs Island last Sunday, my first proper sail on my own boat. Just me, a sandwich and a seal that followed me for a while.
B: A seal! Was it friendly?
A: It looked very judgemental. I think it didn't approve of my tacking.
B: Everyone's a critic.
A: You and Isla should come next time. I have a life jacket in her size.
B: She'd love that. She's very excited about seals right now.
A: What happened to dinosaurs?
B: Dinosaurs are still number one. Seals are number two.
[c_capebreton] B: We drove the Ioniq to Cape Breton last weekend for the Cabot Trail. I was worried about the hills, but we charged in Baddeck and Cheticamp and it was totally fine.
A: Did you visit the old B&B?
B: We drove past. The new owners painted it blue. Mum pretended not to care.
A: Ha, poor Mum.
[n_haida_plan] A: I've booked my big summer trip. A week of kayaking in Haida Gwaii in July, with a guide and five strangers.
B: Haida Gwaii! That's so far.
A: It's the other end of the country. Two flights and a ferry.
B: You're going to see whales.
A: I hope so. I've been practising my paddling in the Arm.
B: You're becoming a real outdoors person.
A: Who knew? I used to think the ferry counted as boating.
"""),
    ("3:30 pm on 28 July, 2024", """
B: You're back! How was it?
[n_haida] A: Unreal. Seven days in the kayak around Haida Gwaii, and on the third day a humpback surfaced maybe fifty metres from us. Then we saw a black bear eating seaweed on a beach.
B: A bear! Were you scared?
A: It didn't care about us at all. It was very busy with its seaweed.
B: I'd be terrified.
A: We camped on the beaches, and the guide cooked salmon over a fire every night.
B: Sounds like heaven.
A: It was. I didn't look at a screen for a week. My eyes needed it.
[c_marcus_exams] B: Marcus finished his first year of the apprenticeship. He passed his exams with the best mark in the class.
A: Go Marcus! Tell him congratulations.
B: He rewired our kitchen light to celebrate. Now it's too bright.
A: Ha, an electrician's home.
[c_isla_swim] B: Isla learned to swim this summer. She jumps off the dock at Mum's friend's cottage and shouts "I'm a seal!"
A: She's going to be a sailor.
B: She's asking when she can go on Petrel again.
A: Any time! She was a great first mate.
B: She told everyone at swimming that she's a captain now.
A: Ha, promotion already.
B: How's the tower?
A: Busy. Summer is all tourists and fog. Yesterday we had fog so thick I couldn't see the runway from the cab.
B: How do you do your job in that?
A: Radar and faith.
B: My crossword this Saturday is about fog, actually. In your honour.
A: I'll solve it in pen.
"""),
]

QA: list[dict[str, object]] = [
    # single-hop
    {"question": "What is the name of Callum's curling team?", "answer": "the Hog Liners", "evidence": ["c_curl"], "category": "single-hop"},
    {"question": "What is Nadia's grandmother called?", "answer": "Oma Lotte", "evidence": ["n_oma"], "category": "single-hop"},
    {"question": "Which newspaper published Callum's first crossword?", "answer": "the Globe and Mail", "evidence": ["c_cross_acc"], "category": "single-hop"},
    {"question": "What is the name of Nadia's nephew?", "answer": "Theo", "evidence": ["n_theo"], "category": "single-hop"},
    {"question": "Where did Callum's family spend a week in August 2023?", "answer": "Cavendish on PEI", "evidence": ["c_pei"], "category": "single-hop"},
    {"question": "What did Marcus make for Nadia's housewarming?", "answer": "lobster rolls (thirty of them)", "evidence": ["n_warming"], "category": "single-hop"},
    {"question": "How long is Nadia's sailboat?", "answer": "twenty-two feet", "evidence": ["n_petrel"], "category": "single-hop"},
    {"question": "What animals did Nadia see in Haida Gwaii?", "answer": "a humpback whale and a black bear eating seaweed", "evidence": ["n_haida"], "category": "single-hop"},
    {"question": "Who is Isla's teacher?", "answer": "Ms. Boudreau", "evidence": ["c_isla_school2"], "category": "single-hop"},
    {"question": "What was the theme of Callum's first crossword?", "answer": "famous ships (with the Bluenose)", "evidence": ["c_cross_theme"], "category": "single-hop"},
    # multi-hop
    {"question": "What happened to Callum's mother after she sold the B&B?", "answer": "she moved to an apartment on Quinpool Road in Halifax, two blocks from Callum", "evidence": ["c_mum_sold", "c_mum_arrived"], "category": "multi-hop"},
    {"question": "Where has Callum's crossword work been published?", "answer": "the Globe and Mail, then a weekly puzzle in the Chronicle Herald", "evidence": ["c_cross_acc", "c_herald"], "category": "multi-hop"},
    {"question": "Where in Western Canada has Nadia travelled?", "answer": "Calgary to help with baby Theo, and Haida Gwaii to kayak", "evidence": ["n_calgary", "n_haida"], "category": "multi-hop"},
    {"question": "Which of Oma Lotte's recipes did Nadia bring to Isla's party, and how did she learn it?", "answer": "the plum cake; Oma showed her and she filmed it at Easter", "evidence": ["n_oma_cake", "n_cake_party"], "category": "multi-hop"},
    {"question": "What went wrong with Callum's Subaru and what replaced it?", "answer": "the transmission died on the 102; a used electric Hyundai Ioniq", "evidence": ["c_subaru", "c_ioniq"], "category": "multi-hop"},
    {"question": "Why did Marcus leave the restaurant, and what does he do instead?", "answer": "the hours made him miss Isla's bedtimes; he is an apprentice with an electrical contractor", "evidence": ["c_marcus_tired", "c_marcus_app"], "category": "multi-hop"},
    {"question": "Why did Oma Lotte move out of her house, and where to?", "answer": "she slipped in her kitchen; she moved to Harbourview, a residence in Lunenburg", "evidence": ["n_oma_fall", "n_oma_move"], "category": "multi-hop"},
    # temporal
    {"question": "When did Nadia pass her checkout?", "answer": "Tuesday 14 November 2023", "evidence": ["n_checkout"], "category": "temporal"},
    {"question": "When was Theo born?", "answer": "Thursday 17 August 2023", "evidence": ["n_theo"], "category": "temporal"},
    {"question": "When did Callum's first crossword appear in the paper?", "answer": "Saturday 10 June 2023", "evidence": ["c_cross_acc"], "category": "temporal"},
    {"question": "When did Callum pass a kidney stone?", "answer": "Sunday 12 November 2023", "evidence": ["c_kidney"], "category": "temporal"},
    {"question": "When did Isla start school?", "answer": "6 September 2023", "evidence": ["c_isla_school"], "category": "temporal"},
    {"question": "When did Isla turn five?", "answer": "Saturday 24 February 2024", "evidence": ["c_isla_party"], "category": "temporal"},
    {"question": "When did Nadia get the keys to her townhouse?", "answer": "1 April 2024", "evidence": ["n_moved"], "category": "temporal"},
    {"question": "When did Callum start working for the Mooseheads?", "answer": "Monday 22 April 2024", "evidence": ["c_moose_start"], "category": "temporal"},
    {"question": "When did the Dash 8 land without hydraulics?", "answer": "Christmas Eve 2023", "evidence": ["n_dash8"], "category": "temporal"},
    {"question": "When did Nadia go kayaking in Haida Gwaii?", "answer": "July 2024", "evidence": ["n_haida"], "category": "temporal"},
    # open-domain / inferential
    {"question": "Does Nadia stay calm under pressure?", "answer": "yes: she handled the Dash 8 losing its hydraulics with a steady voice", "evidence": ["n_dash8"], "category": "open-domain"},
    {"question": "Would Callum enjoy a game of Scrabble?", "answer": "likely: he constructs crosswords and loves finding phrases that fit", "evidence": ["c_cross"], "category": "open-domain"},
    {"question": "Does Nadia enjoy being out on the water?", "answer": "yes: she learned to sail, bought a boat and went kayaking for a week", "evidence": ["n_first_sail", "n_haida"], "category": "open-domain"},
    {"question": "Is Callum happy with the electric car?", "answer": "yes: it handled the Cabot Trail hills with two charges, totally fine", "evidence": ["c_capebreton"], "category": "open-domain"},
    {"question": "Is Nadia close to her grandmother?", "answer": "yes: she visits Lunenburg, learned her plum cake, follows her life at Harbourview", "evidence": ["n_oma_cake"], "category": "open-domain"},
    # changed
    {"question": "Is Nadia still a trainee controller?", "answer": "no: she passed her checkout and is licensed (before: a trainee in the tower)", "evidence": ["n_checkout", "n_job"], "category": "changed"},
    {"question": "Where does Nadia live now?", "answer": "a townhouse in Dartmouth with a harbour view (before: a basement apartment on Agricola Street)", "evidence": ["n_moved", "n_flat"], "category": "changed"},
    {"question": "Where does Callum work now?", "answer": "as team physio for the Mooseheads (before: a sports clinic in Bedford)", "evidence": ["c_moose_start", "c_job"], "category": "changed"},
    {"question": "What car does Callum drive?", "answer": "a used electric Hyundai Ioniq (before: a Subaru whose transmission died)", "evidence": ["c_ioniq", "c_subaru"], "category": "changed"},
    {"question": "What is Marcus's job?", "answer": "apprentice electrician (before: running a seafood restaurant's kitchen)", "evidence": ["c_marcus_app", "c_marcus"], "category": "changed"},
    {"question": "Where does Oma Lotte live?", "answer": "Harbourview, a seniors' residence in Lunenburg (before: alone in her yellow house)", "evidence": ["n_oma_move", "n_oma"], "category": "changed"},
    {"question": "How old is Isla?", "answer": "five (she had just turned four in March 2023)", "evidence": ["c_isla_party", "c_isla"], "category": "changed"},
    # reworded
    {"question": "Did Nadia have any problem with her eyesight?", "answer": "yes: she is short-sighted and wears specs on every shift", "evidence": ["n_specs"], "category": "reworded"},
    {"question": "What painful medical problem sent Callum to hospital?", "answer": "a kidney stone", "evidence": ["c_kidney"], "category": "reworded"},
    {"question": "What broke on Callum's old vehicle?", "answer": "the Subaru's transmission", "evidence": ["c_subaru"], "category": "reworded"},
    {"question": "How does Nadia manage to rest during the day after night work?", "answer": "blackout curtains, foam earplugs and a fan", "evidence": ["n_nights"], "category": "reworded"},
    {"question": "What charity work does Nadia do at weekends?", "answer": "sorting tins and packing hampers at the Parker Street food bank", "evidence": ["n_foodbank"], "category": "reworded"},
    {"question": "What did Callum's mother do for a living?", "answer": "she ran a B&B in Baddeck for thirty years", "evidence": ["c_mum"], "category": "reworded"},
    {"question": "What emergency did Nadia deal with at the airport?", "answer": "a Dash 8 from Montreal lost its hydraulics and landed safely", "evidence": ["n_dash8"], "category": "reworded"},
    {"question": "What vegetable did Callum harvest from his allotment?", "answer": "forty heads of garlic", "evidence": ["c_garlic"], "category": "reworded"},
    {"question": "Where did Marcus cook before he changed careers?", "answer": "a seafood place on the waterfront", "evidence": ["c_marcus"], "category": "reworded"},
    {"question": "How did Callum celebrate his daughter's birthday?", "answer": "a party with twelve kids, a T. rex cake and Marcus as a paleontologist", "evidence": ["c_isla_party"], "category": "reworded"},
    {"question": "What happened when Nadia was learning in the small boats?", "answer": "she capsized her Laser dinghy twice in nine-degree water", "evidence": ["n_capsize"], "category": "reworded"},
    {"question": "What name did Nadia give her yacht?", "answer": "Petrel", "evidence": ["n_petrel"], "category": "reworded"},
    {"question": "What wildlife kept Nadia company when she first sailed Petrel?", "answer": "a seal", "evidence": ["n_first_sail"], "category": "reworded"},
]
