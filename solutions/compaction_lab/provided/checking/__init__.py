"""What a check is: a case (``case``), how its inputs reach a lab function and what it did comes back as plain
data (``wire``), the scenarios a case may play (``drivers``), the one rule that decides it (``verdict``) and the
time limit of a call (``limits``). The notebooks, ``workbook check`` and the grader all use these. The course's
answers standing in for a lab not done yet (``answers``, ``sharing``, ``alone``) are the student's side only."""
