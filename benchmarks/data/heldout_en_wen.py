"""HELD OUT (never tune on it: benchmarks/data/build_heldout.py). English, LoCoMo-style: Grace, a civil
engineer in Manchester, and her friend Wen, a secondary-school music teacher who plays in a band, over
2022 and 2023. Written in session 10 after that session's changes to recall, and measured once at first
read (benchmarks/RESULTS-recall.md): the honest figure for what those changes generalise to."""

from __future__ import annotations

A, B = "Grace", "Wen"

SESSIONS: list[tuple[str, str]] = [
    ("10:20 am on 5 March, 2022", """
A: Morning Wen! Sorry I missed your call yesterday, I was on site until seven.
B: No worries! Which site is it these days?
[g_job] A: The new footbridge over the Irwell in Salford. I'm the structural engineer on it, so every bolt is my problem.
B: That sounds terrifying and brilliant at the same time.
A: Mostly brilliant. Yesterday the crane lifted the first steel section and I nearly cried.
B: Ha! I'd cry too, but from fear of heights.
A: How's school?
[w_job] B: Chaotic. I teach music at a secondary in Stockport, and Year 9 have discovered the drum kit.
A: Oh no. Earplugs?
B: Two pairs. Honestly though, they're a great bunch. One lad wrote a song about his nan that made the whole class go quiet.
A: Aww. That's the kind of thing that makes teaching worth it.
B: Definitely. What else is new with you?
[g_dance] A: I joined a salsa class on Thursday nights in the Northern Quarter. I have two left feet, but the teacher is very patient.
B: Salsa! Grace, that's amazing. Do you have a partner?
A: We rotate. I've stepped on at least nine people.
B: Ha, that's how you learn.
[w_band] B: My band finally has a name, by the way. We're called The Lantern Hours.
A: Ooh, I like it. Very moody.
B: That's the vibe. We've got a gig at a pub in Didsbury next month, you should come.
A: I'll be there. Send me the date.
B: Will do. Right, I'd better mark some compositions.
A: Good luck. Don't let Year 9 win.
"""),
    ("7:45 pm on 2 April, 2022", """
A: Wen! Your gig was incredible. I still have the chorus of the last song in my head.
B: Thank you for coming! Was the sound okay at the back?
A: Loud and perfect. Your drummer is a maniac.
B: That's Jonty. He breaks a stick every song.
[w_album] B: We're talking about recording an album in the summer. Six songs, maybe eight.
A: Yes! You have to.
B: It costs a fortune though. We might do a crowdfunder.
A: I'll be your first backer.
[g_dad] A: Can I tell you something heavy? My dad had a mild stroke two weeks ago. He's okay, but he's in hospital in Leeds.
B: Oh Grace. I'm so sorry. How is he doing?
A: He's talking, a bit slowly. His left hand is weak. The doctors are hopeful.
B: And how are you? You always look after everyone.
A: Tired. I'm driving over the Pennines every weekend. My brother Kwame stays with him on weekdays.
B: Please let me know if I can do anything. I can cook for you, or just sit with you.
A: That means a lot. Maybe just send me silly videos.
B: That I can do. Unlimited goat videos.
A: Perfect.
[w_smoke] B: Random one, but I've quit smoking. Day twelve today. I'm eating my body weight in mints.
A: Wen! That's huge! What made you stop?
B: I want to sing better. My breath runs out in the long notes.
A: I'm so proud of you.
"""),
    ("6:10 pm on 21 May, 2022", """
B: How's your dad?
[g_dad_home] A: He's home now! He does physio three times a week and he's already arguing with the physio, so he's definitely better.
B: That's so good to hear.
A: Kwame and I are taking turns. I go on Saturdays and cook for the week.
B: What do you cook?
[g_jollof] A: Jollof rice, always. Mum's recipe. Dad says mine is almost as good, which is the highest praise he gives.
B: Ha! I need to try it sometime.
A: I'll bring you a tub. How's the smoking situation?
[w_smoke2] B: Six weeks without a cigarette. I replaced it with running, which is honestly worse. Running is hard.
A: You're running now too? Who are you?
B: A new man. A wheezing new man.
A: How's the album plan?
[w_crowd] B: The crowdfunder went live on Monday. We've raised two thousand pounds out of four already!
A: Wow, in one week! I'll share it at work.
B: Please do. The reward for fifty quid is a handwritten lyric sheet.
A: I'm getting one. Which song?
B: You can choose. Probably you'll want "Canal Street Rain", everyone does.
A: That's the one I can't stop humming!
[g_korean] A: Also, I started learning Korean. Duolingo every morning on the tram, and a class online on Sundays.
B: Korean! Why Korean?
A: I've been watching too many dramas, and I want to go to Seoul next year. My goal is to order food without pointing.
B: That's a very achievable goal. Hwaiting!
A: Ha, you know one word already.
"""),
    ("8:30 pm on 9 July, 2022", """
A: How's the recording going?
[w_studio] B: We've been in a studio in Leeds for three days. Eight songs done! I'm exhausted and very happy.
A: Eight! Amazing. When does it come out?
B: Hopefully in October. We need to mix and master it first.
A: I can't wait.
B: How's the bridge?
[g_bridge_delay] A: Delayed. The steel supplier sent the wrong bearings, so we lost three weeks. The client is furious.
B: Ugh, not your fault though?
A: Not my fault, but my problem. I've been on the phone to Sheffield every day.
B: Sounds exhausting. Are you still dancing at least?
[g_dance2] A: Yes! I went to my first social last Saturday, at a bar in Deansgate. I danced with strangers and didn't step on a single foot.
B: Progress!
A: Salsa is the only place my brain turns off.
B: That's how I feel on stage.
[w_summer] B: Summer holidays start in two weeks. I'm going cycling in Wales with my brother, from Cardiff to Anglesey.
A: Cycling! Who are you, again?
B: I know. The new man needs a new bike too.
A: Just don't fall off a mountain.
B: I'll try. How's your Korean?
A: I can introduce myself and say I like tteokbokki. So, the essentials.
B: That's all anyone needs.
"""),
    ("5:00 pm on 28 August, 2022", """
B: I survived Wales!
A: Welcome back! How was the ride?
[w_wales] B: Amazing. Eight days, four hundred miles. It rained on six of them. My brother got two punctures on the same hill.
A: Poor him. Did you see anything beautiful?
B: Snowdonia in the mist was unreal. And we ate a lot of Welsh cakes.
A: Worth it for the Welsh cakes alone.
[g_cat] A: News from here: I adopted a cat. A ginger tom from the RSPCA, he's called Marmalade. He's already broken a mug.
B: A cat! How old is he?
A: About five. He was found under a car in Bolton, the poor thing.
B: And now he's king of your flat.
A: He sleeps on my drawings. Actual engineering drawings.
B: Ha, he's helping.
[g_dad3] A: Dad is doing really well too. He can walk to the corner shop on his own now.
B: That's wonderful. Give him my best.
A: I will. He asked who you were. I said the musician friend. He said, "Is he any good?"
B: Tell him I'm fine. Tell him I'm okay.
A: Ha! I'll tell him you're brilliant.
B: How's the bridge?
[g_bridge_ok] A: Back on track. The right bearings arrived and we installed them last week. We might even open on time.
B: When's the opening?
A: If all goes well, early December.
B: I'll come and walk across it.
"""),
    ("7:15 pm on 16 October, 2022", """
B: The album is out!!!
A: I know! I've listened to it four times already.
[w_release] B: It came out on Friday. "Small Hours" on every platform. Our first review said we sound like Elbow with more shouting.
A: Ha! That's a compliment, right?
B: I'm choosing to take it as one.
A: My favourite is still "Canal Street Rain". The lyric sheet is framed on my wall.
B: You actually framed it?
A: Of course! It's art.
[w_launch] B: We're doing a launch gig at the Band on the Wall on the 29th. It's our biggest venue ever, three hundred people.
A: I'm coming. I'll bring half the office.
B: You're the best. How's life?
[g_sam] A: Well... I've started seeing someone. His name is Sam, we met at salsa.
B: Grace!! Tell me everything.
A: He's a paramedic, he's funny, and he dances better than me, which is annoying.
B: That's not hard, to be fair.
A: Rude. True, but rude.
B: How long?
A: About a month. We went to a Korean restaurant on our third date and I ordered in Korean.
B: Did it work?
A: The waiter answered in English, but he smiled. I'm counting it.
B: Definitely counts.
"""),
    ("9:00 pm on 10 December, 2022", """
A: The bridge is open!
B: I saw it on the news! You were in the background with a hard hat.
[g_open] A: The mayor cut the ribbon on Tuesday. I walked across first with my team. My dad came from Leeds to see it.
B: Your dad came! That must have meant so much.
A: He walked across it with a stick and told everyone I built it myself.
B: Ha, you did, basically.
A: Me and two hundred other people. But I'll take it.
B: How's Sam?
A: Good! He met Dad on the bridge, actually. Dad asked him if he could dance, and then if he could cook.
B: What did he say?
A: Yes and no. Dad seemed satisfied.
B: Priorities.
[w_asthma] B: I've had a rough month. I've got asthma, apparently. The GP thinks all those years of smoking didn't help.
A: Oh no, Wen. Are you okay?
B: I have an inhaler now. Running with it is fine. Singing is fine. I just feel old.
A: You're not old. You're maintained.
B: Ha, like a bridge.
A: Exactly like a bridge.
[w_promo] B: Better news: I've been made head of music at school from January. More money, more meetings.
A: Congratulations! Head of music!
B: The Year 9s have been told to call me sir even more loudly.
A: Ha, well deserved.
"""),
    ("4:40 pm on 22 January, 2023", """
B: Happy new year, Grace! How were the holidays?
[g_xmas] A: Lovely. Sam came to Leeds with me for Christmas. Dad made him do the washing up, which means he likes him.
B: That's a good sign.
A: And Marmalade knocked the Christmas tree over twice.
B: Classic cat.
A: How's being head of music?
B: Three weeks in. Good, actually. I'm planning a school musical for the summer.
A: Which one?
[w_musical] B: Little Shop of Horrors. The kids voted for it. We need a giant singing plant, so the art department hates me.
A: Ha, I'd watch that.
B: You're invited. July.
[g_flat] A: Big news: I'm buying a flat! A two-bedroom in Chorlton, with a tiny balcony. The offer was accepted on Friday.
B: Grace! A homeowner!
A: I'm terrified. The mortgage is bigger than the bridge budget. Well, not quite.
B: When do you move?
A: Hopefully March. I'm packing already, which is mostly removing Marmalade from boxes.
B: I'll help you move. I have a van from the band.
A: I was hoping you'd say that.
[w_gig_abroad] B: The band got booked for a festival in Amsterdam in May. Our first gig abroad!
A: Amazing! You're going international.
B: Jonty has already bought clogs.
"""),
    ("6:30 pm on 19 March, 2023", """
A: Thank you again for moving day. Marmalade has forgiven us both.
B: The piano was the worst part. Who has a piano on a second floor?
A: Me, apparently. Sorry about your back.
B: It'll recover. How's Chorlton?
[g_chorlton] A: I love it. There's a bakery on my street that opens at seven, and the balcony gets the evening sun. I've put tomatoes in pots.
B: Tomatoes on a balcony, very grown-up.
A: Sam says they won't survive Manchester. I say watch me.
B: Ha. How's your Korean?
[g_exam] A: I passed my first Korean exam! TOPIK level one. I got 160 out of 200.
B: Grace, that's brilliant!
A: The listening part was hard. Everyone speaks so fast.
B: Are you still going to Seoul?
[g_seoul_plan] A: Yes! Sam and I booked flights for September. Two weeks in Seoul and Busan.
B: I'm so jealous. You'll eat so well.
A: That is the entire plan. Eat and practise.
[w_breathing] B: My asthma is much better, by the way. I do breathing exercises before class with the choir, and it helps me too.
A: That's such a smart idea.
B: The kids think it's meditation. They love it.
A: How's the musical going?
[w_plant] B: The plant is built! It's three metres tall and made of papier-mâché. Two kids operate it from inside.
A: That's incredible.
B: It smells of glue, but it's magnificent.
"""),
    ("8:00 pm on 14 May, 2023", """
B: We're back from Amsterdam!
A: How was the festival?
[w_ams] B: Unreal. We played on a boat stage on the canal, and about five hundred people watched. Someone sang along in Dutch.
A: To your songs? In Dutch?
B: I think they made up the words. Still counts.
A: That's so cool. Did Jonty wear the clogs?
B: For one song. He nearly fell into the canal.
A: Ha!
[g_promo] A: I've got news too. I've been promoted to associate director at the firm. I'll be leading the team for the new tram extension in Oldham.
B: Associate director! Grace, that's huge!
A: I'll be managing twelve engineers. I'm nervous.
B: You'll be great. You managed a bridge and your dad at the same time.
A: That's true. Dad was harder.
B: How is he?
[g_dad4] A: Really good. He's joined a walking group for stroke survivors in Leeds. They walk around Roundhay Park every Wednesday.
B: I love that.
A: He says the walking is fine but the gossip is the best part.
B: Sounds like my staffroom.
A: How's the musical?
B: Six weeks until opening night. The plant still smells of glue.
"""),
    ("9:15 pm on 9 July, 2023", """
A: Wen, the musical was fantastic! The plant got a standing ovation!
B: Thank you for coming! The kids were buzzing afterwards.
A: The girl who played Audrey has a voice like an angel.
[w_audrey] B: That's Priti. She's applying to music college next year. I'm helping her prepare her audition pieces.
A: She'll get in for sure.
B: I hope so. She works harder than anyone.
[g_proposal] A: So... I have to tell you. Sam proposed! On the balcony, next to the tomatoes.
B: WHAT! Grace! Congratulations!
A: I said yes before he finished the question.
B: Of course you did! When's the wedding?
A: Next summer, probably. Somewhere small. Dad wants to give a speech, which is terrifying.
B: Your dad giving a speech is going to be the highlight.
A: He's already writing it. He won't show me.
B: Amazing. And the tomatoes survived?
A: They did! I've eaten six. Sam was wrong.
[w_cycling2] B: My summer plan: cycling again, this time the coast of Brittany with my brother. Less rain, more cheese.
A: Lovely. No punctures this time?
B: He bought new tyres. We'll see.
B: I've also got some less fun news. My landlord is selling, so I need to move out by October.
A: Oh no. Where will you go?
B: No idea yet. Manchester rents are mad.
A: There's a flat for rent two streets from me. I'll send you the link.
"""),
    ("7:30 pm on 1 October, 2023", """
B: Greetings from my new flat! Two streets from you!
A: Neighbours! I can't believe it worked out.
[w_move] B: I moved in last Saturday. It's above a launderette in Chorlton, so the whole place smells of clean washing.
A: Better than glue.
B: Much better. How was Korea?
[g_korea] A: Amazing. Two weeks, Seoul and Busan. I ordered every single meal in Korean and only got it wrong once. I accidentally ordered three desserts.
B: That's not wrong, that's correct.
A: Sam agrees. He's now obsessed with Korean fried chicken.
B: Who isn't?
[g_busan] A: My favourite day was the fish market in Busan. An old lady taught me how to say "delicious" properly and gave me free octopus.
B: Free octopus! Living the dream.
A: How was Brittany?
B: Perfect. No punctures! Lots of crêpes.
[w_priti] B: And guess what: Priti got into the Royal Northern College of Music! Early offer!
A: I knew it! You must be so proud.
B: I cried in the staffroom. Don't tell anyone.
A: Your secret's safe.
[g_venue] A: Wedding update: we've booked the venue. A converted mill in Hebden Bridge, June 15th next year.
B: That sounds beautiful.
A: You're invited, obviously. Will The Lantern Hours play?
B: We'd be honoured. I'll make Jonty wear a suit.
"""),
    ("6:45 pm on 26 November, 2023", """
A: How's the neighbourhood treating you?
B: I love it. I walk past your bakery every morning. I've become a regular.
A: The cinnamon buns?
B: Two a day. Running helps.
[w_second] B: Big band news: we're recording a second album in January. Our label offered to pay for it this time.
A: You have a label now?!
B: A small one, in Liverpool. But yes!
A: Wen, that's incredible.
[g_tram] A: My tram project is going well too. We finished the design for the Oldham extension, and building starts in spring.
B: How does it feel to lead it?
A: Harder than building a bridge myself. Managing people is a different skill.
B: You'll figure it out, you always do.
[g_marmalade] A: Marmalade had an operation last week, by the way. He swallowed a hair tie and the vet had to remove it.
B: Oh no! Is he okay?
A: He's fine, but he wears a cone and looks furious.
B: Poor boy. Cones are undignified.
[w_asthma2] B: Update on my lungs: my asthma nurse says my breathing tests are back to normal. No inhaler except in winter.
A: That's brilliant news.
B: Quitting smoking was the best thing I ever did. Eighteen months now.
A: I'm so proud of you. Remember the mints?
B: I still eat the mints.
"""),
    ("8:10 pm on 4 February, 2024", """
B: How's the wedding planning?
[g_dress] A: I found my dress! It's green, not white. Mum always said I looked best in green.
B: Green is perfect for you.
A: Dad cried when I showed him a photo. Then he asked how much it cost, and cried differently.
B: Ha! Classic dad.
A: How's the album?
[w_album2] B: We finished recording in a studio in Liverpool last week. Ten songs. One of them is about moving to Chorlton and the launderette.
A: Is there a song about me?
B: Maybe. There might be one about a woman who builds bridges.
A: Wen! I'm honoured.
B: You'll hear it at the wedding first.
[g_sam_job] A: Sam has news too. He's left the ambulance service, he's training to become a nurse practitioner at the Christie.
B: That's a big change. Is he happy?
A: Very. Fewer night shifts, so we can actually see each other.
B: That helps before a wedding.
[w_school2] B: At school, I've started a band club on Fridays. Twelve kids, two of them play the bagpipes.
A: Bagpipes? At a Stockport school?
B: Their grandad is Scottish. They are very, very loud.
A: Louder than Year 9's drums?
B: Much louder. I need three pairs of earplugs now.
"""),
]

QA: list[dict[str, object]] = [
    # single-hop
    {"question": "What does Wen teach?", "answer": "music at a secondary school in Stockport", "evidence": ["w_job"], "category": "single-hop"},
    {"question": "What is the name of Wen's band?", "answer": "The Lantern Hours", "evidence": ["w_band"], "category": "single-hop"},
    {"question": "What is the name of Grace's cat?", "answer": "Marmalade, a ginger tom", "evidence": ["g_cat"], "category": "single-hop"},
    {"question": "Where did Grace meet Sam?", "answer": "at salsa", "evidence": ["g_sam"], "category": "single-hop"},
    {"question": "What did Grace score on her first Korean exam?", "answer": "160 out of 200, TOPIK level one", "evidence": ["g_exam"], "category": "single-hop"},
    {"question": "Which musical did Wen's school put on?", "answer": "Little Shop of Horrors", "evidence": ["w_musical"], "category": "single-hop"},
    {"question": "Where is Grace's wedding venue?", "answer": "a converted mill in Hebden Bridge", "evidence": ["g_venue"], "category": "single-hop"},
    {"question": "What colour is Grace's wedding dress?", "answer": "green", "evidence": ["g_dress"], "category": "single-hop"},
    {"question": "Which college accepted Priti?", "answer": "the Royal Northern College of Music", "evidence": ["w_priti"], "category": "single-hop"},
    {"question": "What does Grace cook for her dad?", "answer": "jollof rice, her mum's recipe", "evidence": ["g_jollof"], "category": "single-hop"},
    # multi-hop
    {"question": "How has Grace's dad recovered since his stroke?", "answer": "home with physio, walks to the corner shop, joined a walking group", "evidence": ["g_dad_home", "g_dad4"], "category": "multi-hop"},
    {"question": "Where has Wen cycled with his brother?", "answer": "Wales (Cardiff to Anglesey) and the coast of Brittany", "evidence": ["w_wales", "w_cycling2"], "category": "multi-hop"},
    {"question": "How did Wen's band pay for and record their first album?", "answer": "a crowdfunder, then three days in a studio in Leeds", "evidence": ["w_crowd", "w_studio"], "category": "multi-hop"},
    {"question": "What has Grace achieved in learning Korean?", "answer": "passed TOPIK level one, ordered every meal in Korean in Korea", "evidence": ["g_exam", "g_korea"], "category": "multi-hop"},
    {"question": "How has Wen's health changed since he quit smoking?", "answer": "asthma diagnosed, then breathing tests back to normal", "evidence": ["w_asthma", "w_asthma2"], "category": "multi-hop"},
    {"question": "Which projects has Grace led at work?", "answer": "the Irwell footbridge, then the Oldham tram extension", "evidence": ["g_job", "g_promo"], "category": "multi-hop"},
    # temporal
    {"question": "When did Grace's dad have his stroke?", "answer": "mid-March 2022", "evidence": ["g_dad"], "category": "temporal"},
    {"question": "When did the band's first album come out?", "answer": "Friday 14 October 2022", "evidence": ["w_release"], "category": "temporal"},
    {"question": "When did the footbridge open?", "answer": "Tuesday 6 December 2022", "evidence": ["g_open"], "category": "temporal"},
    {"question": "When did Sam propose to Grace?", "answer": "early July 2023", "evidence": ["g_proposal"], "category": "temporal"},
    {"question": "When is Grace's wedding?", "answer": "15 June 2024", "evidence": ["g_venue"], "category": "temporal"},
    {"question": "When did Wen move into his flat in Chorlton?", "answer": "Saturday 23 September 2023", "evidence": ["w_move"], "category": "temporal"},
    {"question": "When did Wen quit smoking?", "answer": "around 21 March 2022", "evidence": ["w_smoke"], "category": "temporal"},
    {"question": "When did the band play in Amsterdam?", "answer": "May 2023", "evidence": ["w_ams"], "category": "temporal"},
    # open-domain / inferential
    {"question": "Would Grace enjoy a trip to a Korean food market?", "answer": "yes: her favourite day was the Busan fish market", "evidence": ["g_busan"], "category": "open-domain"},
    {"question": "Is Wen likely to take up a sport?", "answer": "yes: he started running and cycling after quitting smoking", "evidence": ["w_smoke2", "w_wales"], "category": "open-domain"},
    {"question": "Does Grace's father approve of Sam?", "answer": "yes: made him wash up at Christmas, asked if he could dance and cook", "evidence": ["g_xmas"], "category": "open-domain"},
    {"question": "Is Wen a supportive teacher?", "answer": "yes: he helped Priti prepare her auditions", "evidence": ["w_audrey"], "category": "open-domain"},
    # changed
    {"question": "What is Grace's job title now?", "answer": "associate director (before: structural engineer on the footbridge)", "evidence": ["g_promo", "g_job"], "category": "changed"},
    {"question": "Where does Wen live now?", "answer": "above a launderette in Chorlton (before: a rented flat the landlord sold)", "evidence": ["w_move"], "category": "changed"},
    {"question": "What is Sam's job?", "answer": "training as a nurse practitioner (before: paramedic)", "evidence": ["g_sam_job", "g_sam"], "category": "changed"},
    {"question": "What is Wen's role at school?", "answer": "head of music (before: music teacher)", "evidence": ["w_promo", "w_job"], "category": "changed"},
    {"question": "How many albums has Wen's band made?", "answer": "two: Small Hours, then a second recorded in Liverpool", "evidence": ["w_album2", "w_release"], "category": "changed"},
    # reworded
    {"question": "What happened to Grace's pet that needed surgery?", "answer": "Marmalade swallowed a hair tie and the vet removed it", "evidence": ["g_marmalade"], "category": "reworded"},
    {"question": "How does Grace relax when her mind is busy?", "answer": "salsa: the only place her brain turns off", "evidence": ["g_dance2"], "category": "reworded"},
    {"question": "What problem with parts held up the footbridge?", "answer": "the steel supplier sent the wrong bearings", "evidence": ["g_bridge_delay"], "category": "reworded"},
    {"question": "What did Grace grow at her new home?", "answer": "tomatoes in pots on the balcony", "evidence": ["g_chorlton"], "category": "reworded"},
    {"question": "Which breathing illness was Wen diagnosed with?", "answer": "asthma", "evidence": ["w_asthma"], "category": "reworded"},
    {"question": "What prop did the art department build for the show?", "answer": "a three-metre papier-mâché plant", "evidence": ["w_plant"], "category": "reworded"},
    {"question": "What did Wen's band do on the water in the Netherlands?", "answer": "played a boat stage on the canal in Amsterdam", "evidence": ["w_ams"], "category": "reworded"},
    {"question": "What instrument do the two loud kids in the band club play?", "answer": "bagpipes", "evidence": ["w_school2"], "category": "reworded"},
    {"question": "Where did Grace buy a home?", "answer": "a two-bedroom flat in Chorlton", "evidence": ["g_flat"], "category": "reworded"},
]
