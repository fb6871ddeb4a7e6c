"""READ, NO LONGER HELD OUT: measured at first read, then its misses guided session 10's changes
(benchmarks/RESULTS-recall.md); heldout_en_wen.py and heldout_ja_kotone.py are the held-out pair now.
English, LoCoMo-style: Priya, a sound
engineer in Portland, and her friend Tom, a history teacher, over January 2023 to June 2024.
Written in session 10 before any change of that session; its first-read figure is in
benchmarks/RESULTS-recall.md."""

from __future__ import annotations

A, B = "Priya", "Tom"

SESSIONS: list[tuple[str, str]] = [
    ("2:15 pm on 9 January, 2023", """
A: Hey Tom! Happy new year! How were the holidays at your place?
B: Hey Priya! Happy new year to you too. Loud, honestly. Elena's parents stayed with us for ten days and the kids were bouncing off the walls.
A: Ha, I can imagine. Mine were quiet. I worked through most of it, we had a rush job mixing an audiobook.
B: Wait, you were working over Christmas? What's the audiobook?
[p_job] A: It's a thriller, twelve hours of narration. I'm the sound engineer at Larkspur Audio, the little podcast studio on Division Street, so when a publisher panics, we all jump.
B: That sounds intense. Do you actually enjoy that kind of work or is it just the paycheck?
[p_sanding] A: I love it most days. Cleaning up breaths and mouth clicks is weirdly satisfying. It's like sanding wood.
[t_job] B: I get that. Grading essays is the opposite for me. Fifteen years teaching history at Roosevelt High and I still dread the red pen.
A: Fifteen years! Do the kids still surprise you?
B: All the time. One of my juniors wrote a paper on the 1948 Vanport flood last term that was better than half the books on it.
A: The Vanport flood? I've never heard of it.
[t_vanport] B: It wiped out a whole city right here in north Portland, the second biggest city in Oregon at the time. It's my favourite local story, I could talk for hours about it.
A: You should! Seriously, you'd make a great podcast host.
B: Ha, maybe one day. What about resolutions, did you make any?
[p_run] A: Just one. I signed up for the Shamrock Run in March, the half marathon. I've never run more than 10k in my life.
B: Brave. Are you following a plan?
A: A twelve-week one from an app. Three runs a week, long run on Sundays. Today is day one and my calves already hate me.
B: You'll be fine. Just don't go out too fast.
A: Noted, coach. How are the kids?
[t_kids] B: Good. Mateo turned nine and he's obsessed with soccer, and Lucia is six and wants to be a veterinarian this month.
A: This month, haha. Last month it was astronaut, right?
B: Exactly. Next month probably pirate.
"""),
    ("7:40 pm on 28 January, 2023", """
B: Hey Priya, how's the running going?
A: Slowly! I did my first 8k last Sunday along the waterfront. Took me almost an hour.
B: That's great progress for three weeks.
[p_dog] A: Also, big news: I adopted a dog! A retired racing greyhound named Biscuit. She's four and she sleeps twenty hours a day.
B: No way! Congratulations! Where did you find her?
[p_rescue] A: Through a greyhound rescue group in Vancouver, Washington. They bring them up from the tracks in Florida after they retire.
B: Do greyhounds even like apartments? I thought they needed tons of space.
[p_flat] A: Everyone thinks that, but they're total couch potatoes. Two short walks and she's happy. My one-bedroom on Hawthorne is plenty.
B: Lucia is going to lose her mind when she hears about this.
A: Bring her over sometime! Biscuit is super gentle.
B: I will. Things here are hectic, Elena started her new job this week.
A: Oh right, what's she doing now?
[t_elena] B: She's a pharmacist, but she left the hospital and joined a small independent pharmacy in Sellwood. Shorter commute, no night shifts.
A: No night shifts sounds like a dream.
B: It is. We actually eat dinner together now.
A: What did you cook tonight?
B: Tacos, Mateo's choice. He would eat tacos every night if we let him.
A: Same, honestly.
B: How's work, any more panic audiobooks?
A: No, thank god. This week it's a true crime podcast, eight episodes. The host mumbles a lot, so lots of fixing.
B: Poor you. Okay, I need to go help with homework. Fractions, my nemesis.
A: Good luck! Say hi to everyone.
"""),
    ("11:05 am on 19 February, 2023", """
A: Tom! Guess where I was last night.
B: No idea, tell me!
[p_pottery] A: My first pottery class! My friend Jess gave me a gift card for a wheel-throwing course at a studio in the Pearl District. Six Saturday evenings.
B: That's amazing. Did you make anything?
A: A lopsided bowl and a lot of mud. The teacher says everyone's first bowl is lopsided.
B: Ha, it's a rite of passage. Are you going to keep it?
A: Of course, it'll be Biscuit's treat bowl.
B: Perfect. Speaking of making things, I started building a treehouse for the kids.
A: Whoa, from scratch?
[t_treehouse] B: Yeah, in the big maple in our backyard. I bought plans online, but I keep changing them. It's going to have a rope ladder and a trapdoor.
A: The kids must be thrilled.
B: Mateo wants a zipline. I said absolutely not.
A: Good call. How long do you think it'll take?
B: If the weather cooperates, maybe by the start of summer. Weekends only.
A: You'll need a housewarming party. Treewarming?
B: Ha, treewarming. I like it.
A: How's school going by the way?
[t_club] B: Busy. I started an after-school history club, twelve kids so far. We're doing a project on old Portland neighbourhoods that disappeared.
A: Like the flood city?
[t_interview] B: Exactly, Vanport is the first unit. They're interviewing a woman whose grandmother survived it.
[p_offer] A: That's so cool. I'd love to record that. Bring the kids to the studio some afternoon, I'll set them up with proper mics.
B: Wait, would you really? Their audio from phones is terrible. You're the best, I'll talk to the principal.
"""),
    ("6:30 pm on 20 March, 2023", """
B: So?? How was the race yesterday?
[p_race] A: I finished! Two hours, eleven minutes. It rained the whole way and I cried at mile eleven, but I finished.
B: Priya, that's incredible! Congratulations!
A: Thank you! My legs feel like wood today. I took the stairs backwards this morning.
B: Did anyone come cheer for you?
[p_marco_sign] A: Marco did. He stood at the finish line in the rain with a ridiculous sign that said "Run Priya, the bagels are waiting".
B: Wait, who is Marco?
[p_marco] A: Oh right, I haven't told you. We've been seeing each other for about a month. He's a chef at an Italian place on Alberta Street.
B: A chef! So you eat well now.
A: Very well. He made fresh pappardelle on our second date. I'm doomed.
B: Ha, sounds like a keeper.
A: We'll see. It's early. How are things with you?
[t_wrist] B: Not great, actually. I fell off the ladder working on the treehouse. Urgent care says my left wrist is fractured, so it's a cast for six weeks.
A: Oh no! Are you okay?
B: I'm fine, just clumsy. The treehouse is on hold, obviously.
A: That's such bad luck. Are the kids helping you?
B: Lucia brings me ice packs and bills me a dollar each.
A: She's going to be a businesswoman, not a vet.
B: Honestly, yes.
A: Let me know if you need anything carried.
B: I will. And seriously, congrats on the race. You should be proud.
A: I am, a little. Next goal is under two hours.
"""),
    ("8:15 pm on 16 April, 2023", """
A: Hey Tom, how's the wrist?
B: Still in the cast, three more weeks. Writing on the whiteboard with my right hand only is a comedy show.
A: I bet the kids love that.
B: They do. So, the recording session on Thursday was amazing. Thank you again.
[p_rec] A: It was honestly my favourite afternoon this year. Mrs. Jackson's story about her grandmother climbing onto a roof during the flood gave me chills.
B: The kids were so quiet for once. I think it hit them that it was real.
[p_edit] A: I edited the whole interview already. Forty minutes, I took out only the coughs.
B: You already edited it? That was fast.
A: I couldn't help it. It's a great story. You should put it out there as a podcast episode.
[t_podcast] B: Okay, you've convinced me. I want to start a podcast about lost Portland history. The kids can research, I'll host, and the Vanport interview can be episode one.
[p_free] A: YES. I'll help you with the sound, for free, obviously.
B: You can't work for free.
A: Pay me in pizza. Deal?
B: Deal. What should we call it?
A: Something with water? Since Vanport was a flood?
B: Hmm. "Under the River"? Too sad?
A: I kind of like it.
[t_podname] B: What about "Ghost Towns of the Rose City"? Vanport, Linnton, the old Chinatown...
A: Ooh, that's good. Ghost Towns of the Rose City. Done.
B: Done! How's Marco, by the way?
[p_beach] A: Good! We went to the coast last weekend, Cannon Beach. Biscuit saw the ocean for the first time and ran in circles for ten minutes.
B: A greyhound at full speed on a beach, that must have been a sight.
A: She was a blur. Then she slept for two days.
"""),
    ("5:50 pm on 14 May, 2023", """
B: Hey Priya! Sorry I've been quiet, end of the school year madness.
A: No worries! How are you?
B: Cast is off! My wrist is thin and weird-looking but it works.
A: Yay! Back to the treehouse then?
B: Slowly. Elena made me promise to get someone to hold the ladder.
A: Smart woman.
[p_promo] A: I have news too. I got promoted, I'm now head of post-production at Larkspur. I'll be managing two junior editors.
B: Congratulations! That's huge. Did you ask for it?
A: Kind of. Our old head left for a job in LA and I just applied. I'm nervous about being a boss.
B: You'll be great. You're patient, and you actually listen.
A: Thanks, Tom. And I'm getting a raise, so I finally bought a proper espresso machine.
B: Priorities.
[p_wedding] A: Also, I'm flying to India in August. My brother Arjun is getting married in Kochi, in Kerala.
B: How exciting! Is it a big wedding?
A: Six hundred guests, three days. My mom has been sending me saree photos every hour.
B: Six hundred! Ours had sixty.
A: That's a small Indian wedding, haha. Who is going to take care of Biscuit though?
[t_sit] B: We can! Lucia would be thrilled. Mateo will walk her, it'll teach them responsibility.
A: Are you sure? It's two and a half weeks.
B: Absolutely. Just write down what she eats, and whether she can climb stairs.
A: She can, but she's dramatic about it. You're a lifesaver.
B: Any news on the sound side? We recorded episode two in the studio last week.
[p_linnton] A: Yes, it's the Linnton one, I'm mixing it this weekend. The segment about the fire is really strong.
"""),
    ("7:20 pm on 25 June, 2023", """
A: Tom! I just listened to the first episode online. It's live!
[t_launch] B: It is! We launched it on Friday. Forty-three downloads so far, and only about twenty of them are my mom.
A: Haha, forty-three is great for a first weekend.
[t_ohs_ask] B: Someone from the Oregon Historical Society emailed asking if we want to do an episode with their archive.
A: What?! That's amazing!
B: I know! The kids are over the moon. Well, the ones who haven't left for summer.
A: Did school finish?
B: Last week. I'm officially on summer break, which means treehouse time.
[t_treehouse_done] B: Actually, it's basically finished. We painted it dark green and Lucia hung fairy lights inside. The rope ladder works.
A: No zipline?
B: No zipline. Mateo is still negotiating.
A: Send me a photo! How are you otherwise?
B: Good. How's being the boss?
[p_dev_late] A: Honestly, harder than I thought. One of my editors, Dev, is brilliant but always late with deadlines.
B: Classic. Have you talked to him?
A: Not yet. I hate confrontation.
[t_advice] B: Frame it as helping him. Ask what's slowing him down.
A: That's good advice. Teacher mode.
B: Fifteen years of teenagers.
[p_marathon_plan] A: Also, I signed up for another race. The Portland Marathon, in October. A full one this time.
B: A full marathon! You said never again after the half.
A: I know. Marco says I'm addicted to suffering.
B: Is he running too?
A: Ha, no. He says chefs stand all day, that's his marathon.
B: Fair. Is training going okay with the heat?
A: I run at six in the morning with Biscuit for the first mile, then she goes home and I keep going.
"""),
    ("9:30 pm on 3 September, 2023", """
B: Welcome back! How was the wedding?
A: Exhausting and perfect. Three days of ceremonies, and I danced until my feet hurt.
[p_wedding_day] A: Arjun and Meera got married on the 20th at a temple by the backwaters, then a huge reception in Kochi. I gave a speech in Malayalam and only messed up once.
B: In Malayalam! I'm impressed.
A: My grandmother cried. Worth every hour of practice.
B: Biscuit was an angel here, by the way.
A: Mateo sent me a video every day. She looked very relaxed on your couch.
B: She took over our couch. Elena has given up.
A: Haha, sorry! Did she eat okay?
[t_sock] B: Everything. Plus one of Lucia's socks, but it came out fine.
A: Oh no, gross. Sorry!
B: It's fine, it's part of the adventure.
[p_breakup] A: Some less fun news: Marco and I broke up. Right before I left. He got offered a head chef job in Seattle and we decided long distance wouldn't work.
B: Oh Priya, I'm sorry. How are you feeling?
A: Sad, but it was mutual. It was a good few months. I'm okay, really.
B: Well, you know where to find us. Tacos every Tuesday.
A: Thank you. How was the rest of your summer?
[t_iceland] B: Good! We spent ten days in Iceland in August, in a camper van. The kids saw puffins and a glacier. Elena drove the whole ring road.
A: Iceland! Did you see the northern lights?
B: Wrong season, it was light until almost midnight. But we soaked in a hot spring in the rain and it was magical.
A: That sounds wonderful.
B: And now school starts on Tuesday. Back to reality.
A: Is the history club coming back?
[t_club2] B: Yes, and it doubled. Twenty-five kids signed up because of the podcast.
"""),
    ("6:45 pm on 10 October, 2023", """
A: Hey Tom, I did it. I'm a marathoner.
B: Priya!!! Tell me everything.
[p_marathon] A: Four hours and thirty-eight minutes on Sunday. My legs quit at mile twenty-two and I walked for a bit, but I ran the last mile across the Broadway Bridge.
B: That's unbelievable. Half a year ago you had never done a 10k.
A: I know! I'm never doing it again. Probably.
B: Famous last words.
A: Anyway, did the Historical Society episode happen?
[t_ohs] B: Recorded it last week! They let the kids handle real photos from the 1905 Lewis and Clark Exposition. We're releasing it in November.
A: I need to mix it! Send me the files.
B: Already in your inbox. Sorry, we're a lot of work.
A: Don't be sorry. It's my favourite project.
[p_dev] A: Work-wise, I took your advice with Dev. Turns out he was also caring for his dad after a stroke. We changed his schedule and he's doing great.
B: I'm so glad you asked him. That's good leadership.
A: It felt good. I'm getting the hang of this.
B: And how's your heart?
[p_quiet] A: Better. I've been going to the wheel every week, it keeps my mind quiet. I made a set of four mugs that don't leak.
B: Non-leaking mugs! That's professional level.
A: One of them is a little tilted. That one is yours.
B: I'm honoured.
[t_vaccine] B: Elena says hi, by the way. She's studying for a certification to give vaccines at work. She's stressed.
A: Tell her good luck from me.
[t_coach] B: I will. Mateo has a soccer tournament this weekend, I'm the assistant coach now.
A: Of course you are. Is there anything you don't coach?
B: Apparently mugs.
"""),
    ("4:30 pm on 19 November, 2023", """
[t_plays] B: Hey! The Exposition episode is out and it's our most downloaded ever, two thousand plays.
A: Two thousand! Tom, that's amazing!
B: A local radio station even played a clip on their morning show.
A: Which station?
[t_kboo_ask] B: KBOO. They want to talk about maybe airing the whole series.
A: That would be huge.
[p_opb_offer] A: Speaking of radio, I have big news. I'm leaving Larkspur. I accepted a job at Oregon Public Broadcasting as an audio producer for their news desk.
B: OPB! Congratulations! When did this happen?
[p_start] A: I interviewed twice in October, they offered it last week. I start on January 8th.
B: That's a great move. Are you sad to leave?
A: A little. I'll miss my team, especially Dev. But I want to work on real journalism.
B: Makes sense. Will you still have time for our episodes?
A: I'll make time. I'm not abandoning the ghost towns.
[p_move] A: Also I'm moving. My landlord is selling the building, so I found a small house with a yard in St. Johns. Biscuit will finally have grass.
B: St. Johns! That's right next to where Vanport used to be.
A: I know, I thought of you immediately. I'll be living on top of your favourite story.
B: When's the move?
[p_move_date] A: December 15th. I'm already drowning in boxes.
B: I can bring the van and Mateo can carry lamps. He loves carrying lamps.
A: I'll take you up on that.
B: Any new running goals?
[p_swim] A: No races for a while. My knees asked for a break. I'm swimming instead, at the Matt Dishman pool.
B: Smart. Easy on the joints.
A: And it's warm in there, which is important in November.
"""),
    ("8:00 pm on 21 December, 2023", """
A: Hey Tom, thank you so much for the help on Friday. I don't know how I'd have done it without the van.
B: Happy to help. How's the new place?
[p_house] A: I love it. It's a tiny 1920s bungalow with a red door and a crooked porch. Biscuit has already dug a hole under the lilac bush.
B: Typical. Has she learned to use the dog door?
A: She's scared of it. I have to hold it open and bribe her with cheese.
B: Ha! Lucia asked if she can visit Biscuit's new house during the holidays.
[p_biryani] A: Of course! Come over for dinner, I'll make biryani. How about the 28th?
B: Perfect, we'd love that.
[t_knee] B: Bad news from me though. My knee finally gave up, years of pickup basketball. I'm getting arthroscopic surgery on January 12th.
A: Oh no! First the wrist, now the knee.
[t_crutches] B: I'm falling apart. The surgeon says I'll be on crutches for two weeks and can't be on the sideline until spring.
A: Who'll help Mateo's team?
[t_elena_coach] B: Elena, actually. She's going to take my place with the team. She knows nothing about soccer.
A: Haha, that's amazing.
B: She watched three YouTube videos and now she has opinions about formations.
A: I love her.
B: How's Christmas looking for you?
[p_parents] A: My parents are flying in from New Jersey. My mom wants to inspect the house.
B: Good luck. Is she going to approve?
A: She'll say the kitchen is too small. It is too small.
"""),
    ("7:10 pm on 4 February, 2024", """
B: So how's the new job? A month in!
[p_opb] A: I love it. I produce the morning news segments, so I wake up at four thirty, which is brutal, but the people are wonderful.
B: Four thirty! That's a baker's schedule.
A: I go to bed at nine like a grandma. Biscuit approves.
B: What's the best story so far?
[p_storm_piece] A: I produced a piece on the ice storm last month, when half the city lost power. We recorded a guy who kept his neighbours warm with his wood stove.
B: I remember that storm. We lost power for three days.
A: You did? With a fresh knee?
[t_storm] B: Yes! I was on crutches in a cold house. Elena and the kids slept in the living room by the fireplace. It was kind of fun, like camping.
A: Tom. That's not fun, that's survival.
B: Ha, we had s'mores. It was fun.
A: How's the knee now?
[t_pt] B: Much better. Physical therapy twice a week. I can do stairs without swearing.
A: Progress!
[t_kboo] B: Also KBOO is airing our show! Every Sunday at 10 am starting in March. The kids are famous at school.
A: Tom! That's incredible! Radio!
B: You made that possible. Without your sound it would still be phone recordings.
A: Stop, you'll make me cry at 7 pm, which is my bedtime.
B: Haha. Is the clay still happening?
[p_kiln] A: Yes, I bought a second-hand kiln from a retiring potter in Gresham. It's in my garage now. I can fire my own pieces.
B: A kiln in your garage! The house is turning into a workshop.
A: That's the dream.
"""),
    ("12:30 pm on 23 March, 2024", """
A: Hey! Happy spring! Are you back at soccer?
[t_back] B: Yes! Officially back on the sideline. Elena retired with a perfect record of one win, four losses.
A: Haha, a legend.
[p_hana] A: I have some personal news. I've been seeing someone new. Her name is Hana, she works at the animal hospital where I take Biscuit.
B: Oh! Wait, is that how you met?
[p_duck] A: Yes, Biscuit ate a rubber duck and we ended up in the emergency room at midnight. Hana was the vet on shift.
B: That is a romantic comedy plot.
A: Biscuit is fine, the duck came out. Hana asked if she could check on her the next week, and then asked me out.
B: I love this so much. Is it serious?
A: It's been two months. It feels really easy, you know?
B: I'm really happy for you. Lucia is going to want to meet a real vet.
A: Ha, Hana already offered to give her a tour of the clinic.
B: You've just made a six year old very happy. Well, seven now.
A: She turned seven? When?
[t_lucia7] B: Last week, on the 15th. She had a unicorn cake and made everyone wear horns.
A: I'm sorry I missed it!
[t_book] B: No worries. Also, this is wild, a publisher reached out. They want me to write a book based on the podcast, about Portland's vanished places.
A: A book! Tom!
[t_contract] B: I signed the contract on Monday. I have until next spring to write it.
A: You're going to be an author. Mr. Becker, the author.
B: The kids in my club are going to be in the acknowledgements.
A: They should be co-authors!
B: Ha, maybe I'll give them a chapter each.
"""),
    ("6:00 pm on 5 May, 2024", """
B: Hey Priya, how are things at work?
[p_award] A: Good news! The ice storm piece won a regional award from the Public Media Journalists Association. I'm flying to Denver in June to get it.
B: An award! You've had quite a year.
A: I can't believe it. My mom has told every aunt in New Jersey.
B: Of course she has.
A: How's the writing going?
[t_archive] B: Slowly. I'm writing the Vanport chapter first. I spend my Saturdays in the archives at the historical society, it's like a treasure hunt.
A: That sounds like heaven for you.
B: It is. Elena says I come home smelling like old paper.
A: Haha. Is Mateo still doing soccer?
[t_keeper] B: He's moved up to the U11 team. He's the goalkeeper now, which terrifies me.
A: Goalkeeper! Brave kid.
B: And you? How's Hana?
[p_movein] A: Really good. She's moving in with me in July. Her cat, Mochi, is coming too, so Biscuit will have a roommate.
B: A greyhound and a cat. Is that safe?
A: Greyhounds can have a prey drive, but Biscuit is scared of everything, so I think the cat will be the boss.
B: Ha, poor Biscuit.
A: We're doing slow introductions. Hana knows all the tricks.
B: Of course she does.
[p_sold] A: Oh, and I sold six bowls at the St. Johns farmers market last Saturday! My first sales ever.
B: You're a professional potter now!
A: Sixty dollars total. I spent it all on clay.
"""),
    ("8:45 pm on 30 June, 2024", """
A: Hey Tom! I'm back from Denver.
B: How was the ceremony?
[p_saree] A: So fancy. I wore the saree from Arjun's wedding and got so many compliments.
B: Smart reuse. Did you give a speech?
A: A tiny one. I thanked the guy with the wood stove, he deserved it more than me.
B: That's very you.
[t_sabbatical] B: I have news. I'm taking next school year off from Roosevelt to finish the book. The district approved it yesterday.
A: A whole year of writing? That's a dream.
B: Half pay, so Elena and I are budgeting hard. But I think it's worth it.
A: Of course it is. Will the history club continue?
[t_ortiz] B: My colleague Ms. Ortiz will run it, and the kids will keep making the show with her.
A: I'll keep mixing it. Tell her she has a free sound engineer.
B: Pizza-funded.
A: Pizza-funded, always.
B: Has Hana moved in?
[p_mochi] A: Two weeks ago. Mochi took over Biscuit's bed on the first night and Biscuit now sleeps on the couch. As predicted.
B: Ha! Called it.
[p_tomatoes] A: Hana also planted tomatoes in the yard. I've never had a garden.
B: You have a kiln, a dog, a cat, a garden and a partner. Your house is full.
A: It's full and I love it.
B: We should do a summer barbecue. The kids want to show Hana the treehouse.
A: Yes! Fourth of July?
B: Perfect. Bring the cat. Kidding.
"""),
]

QA: list[dict[str, object]] = [
    # single-hop
    {"question": "What kind of dog did Priya adopt?", "answer": "a retired racing greyhound", "evidence": ["p_dog"], "category": "single-hop"},
    {"question": "What does Elena do for a living?", "answer": "pharmacist", "evidence": ["t_elena"], "category": "single-hop"},
    {"question": "What subject does Tom teach?", "answer": "history, at Roosevelt High", "evidence": ["t_job"], "category": "single-hop"},
    {"question": "How long did it take Priya to finish the half marathon?", "answer": "2 hours 11 minutes", "evidence": ["p_race"], "category": "single-hop"},
    {"question": "What is the name of the podcast Tom started?", "answer": "Ghost Towns of the Rose City", "evidence": ["t_podname"], "category": "single-hop"},
    {"question": "What did Priya buy from a potter who was retiring?", "answer": "a second-hand kiln", "evidence": ["p_kiln"], "category": "single-hop"},
    {"question": "Who will run the history club while Tom writes?", "answer": "Ms. Ortiz", "evidence": ["t_ortiz"], "category": "single-hop"},
    {"question": "What is the name of Hana's cat?", "answer": "Mochi", "evidence": ["p_movein"], "category": "single-hop"},
    {"question": "Where did Tom's family travel in August 2023?", "answer": "Iceland, ten days in a camper van", "evidence": ["t_iceland"], "category": "single-hop"},
    {"question": "What award did Priya's story win?", "answer": "a regional award from the Public Media Journalists Association", "evidence": ["p_award"], "category": "single-hop"},
    {"question": "What position does Mateo play in soccer?", "answer": "goalkeeper", "evidence": ["t_keeper"], "category": "single-hop"},
    # multi-hop (two sessions)
    {"question": "What injuries has Tom had since he started the treehouse?", "answer": "a fractured wrist from the ladder, then knee surgery", "evidence": ["t_wrist", "t_knee"], "category": "multi-hop"},
    {"question": "Which races has Priya completed?", "answer": "the Shamrock Run half marathon and the Portland Marathon", "evidence": ["p_race", "p_marathon"], "category": "multi-hop"},
    {"question": "Which animals live in Priya's house by summer 2024?", "answer": "Biscuit the greyhound and Hana's cat Mochi", "evidence": ["p_dog", "p_mochi"], "category": "multi-hop"},
    {"question": "How did Priya help with the history club's Vanport interview?", "answer": "she offered to record it in her studio and then edited it", "evidence": ["p_offer", "p_edit"], "category": "multi-hop"},
    {"question": "Who has looked after Biscuit or treated her besides Priya?", "answer": "Tom's family while Priya was in India; Hana, the vet", "evidence": ["t_sit", "p_duck"], "category": "multi-hop"},
    {"question": "How has Tom's podcast grown since it launched?", "answer": "43 downloads the first weekend, 2,000 plays for the Exposition episode, then aired on KBOO", "evidence": ["t_launch", "t_kboo"], "category": "multi-hop"},
    {"question": "What has Elena done with the soccer team and at her pharmacy?", "answer": "coached Mateo's team while Tom recovered; studied to give vaccines", "evidence": ["t_elena_coach", "t_vaccine"], "category": "multi-hop"},
    # temporal
    {"question": "When did Priya run the Shamrock Run?", "answer": "19 March 2023", "evidence": ["p_race"], "category": "temporal"},
    {"question": "When did Tom's podcast first come out?", "answer": "Friday 23 June 2023", "evidence": ["t_launch"], "category": "temporal"},
    {"question": "When did Priya start working at OPB?", "answer": "8 January 2024", "evidence": ["p_start"], "category": "temporal"},
    {"question": "When did Priya move into her house in St. Johns?", "answer": "15 December 2023", "evidence": ["p_move_date"], "category": "temporal"},
    {"question": "When was Tom's knee operation?", "answer": "12 January 2024", "evidence": ["t_knee"], "category": "temporal"},
    {"question": "When did Arjun get married?", "answer": "20 August 2023", "evidence": ["p_wedding_day"], "category": "temporal"},
    {"question": "When did Priya sell her first pottery?", "answer": "Saturday 27 April 2024", "evidence": ["p_sold"], "category": "temporal"},
    {"question": "When did Tom break his wrist?", "answer": "March 2023", "evidence": ["t_wrist"], "category": "temporal"},
    {"question": "When did Lucia turn seven?", "answer": "15 March 2024", "evidence": ["t_lucia7"], "category": "temporal"},
    # open-domain / inferential
    {"question": "Would Priya enjoy a hobby where she works with her hands?", "answer": "yes: she finds editing like sanding wood and took up pottery", "evidence": ["p_sanding", "p_pottery"], "category": "open-domain"},
    {"question": "Is Tom well suited to writing a book about local history?", "answer": "yes: he has taught history for fifteen years and loves the Vanport story", "evidence": ["t_job", "t_vanport"], "category": "open-domain"},
    {"question": "Does Tom's family seem to enjoy outdoor adventures?", "answer": "yes: camper van in Iceland, hot springs", "evidence": ["t_iceland"], "category": "open-domain"},
    {"question": "Is Priya someone who avoids difficult conversations at work?", "answer": "she hates confrontation but asked Dev what was slowing him down", "evidence": ["p_dev_late", "p_dev"], "category": "open-domain"},
    {"question": "What would be a thoughtful gift for Priya?", "answer": "clay or pottery supplies", "evidence": ["p_kiln", "p_sold"], "category": "open-domain"},
    # changed facts (newest value first)
    {"question": "Where does Priya work now?", "answer": "Oregon Public Broadcasting (before: Larkspur Audio)", "evidence": ["p_opb_offer", "p_job"], "category": "changed"},
    {"question": "Where does Priya live now?", "answer": "a bungalow in St. Johns (before: a one-bedroom on Hawthorne)", "evidence": ["p_move", "p_flat"], "category": "changed"},
    {"question": "Who is Priya dating?", "answer": "Hana, a vet (before: Marco, a chef)", "evidence": ["p_hana", "p_marco"], "category": "changed"},
    {"question": "What is Priya's role at Larkspur Audio?", "answer": "head of post-production (before: sound engineer)", "evidence": ["p_promo", "p_job"], "category": "changed"},
    {"question": "How old is Lucia?", "answer": "seven (she was six in 2023)", "evidence": ["t_lucia7", "t_kids"], "category": "changed"},
    {"question": "Who coaches Mateo's soccer team with him?", "answer": "Tom again (Elena stood in during his knee recovery)", "evidence": ["t_back", "t_elena_coach"], "category": "changed"},
    # reworded (the evidence shares few words with the question)
    {"question": "What does Priya do to calm down after her breakup?", "answer": "goes to the pottery wheel every week", "evidence": ["p_quiet"], "category": "reworded"},
    {"question": "Which of Priya's siblings got married?", "answer": "her brother Arjun", "evidence": ["p_wedding"], "category": "reworded"},
    {"question": "What happened when Priya's pet swallowed a toy?", "answer": "emergency vet at midnight, where she met Hana", "evidence": ["p_duck"], "category": "reworded"},
    {"question": "Where did the Becker family sleep during the blackout?", "answer": "in the living room by the fireplace", "evidence": ["t_storm"], "category": "reworded"},
    {"question": "What dish did Priya offer to cook for Tom's family?", "answer": "biryani", "evidence": ["p_biryani"], "category": "reworded"},
    {"question": "What does Marco do for work?", "answer": "chef at an Italian restaurant", "evidence": ["p_marco"], "category": "reworded"},
    {"question": "How is Priya getting exercise instead of jogging?", "answer": "swimming at the Matt Dishman pool", "evidence": ["p_swim"], "category": "reworded"},
    {"question": "What leave is Tom taking from teaching?", "answer": "a sabbatical year at half pay to finish the book", "evidence": ["t_sabbatical"], "category": "reworded"},
    {"question": "How did Tom's daughter decorate the finished treehouse?", "answer": "she hung fairy lights inside; painted dark green", "evidence": ["t_treehouse_done"], "category": "reworded"},
]
