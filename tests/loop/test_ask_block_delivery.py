"""A blocking `hall ask` that receives its answer itself is not resumed with it again by the daemon."""

from hallmark.core import journal, questions
from hallmark.core.loop import resume


def test_a_blocking_asker_that_got_its_answer_is_owed_nothing(hall_repo):
    asked = questions.ask(hall_repo, "billed or raw?", options=["billed", "raw"], session="sess-1")
    questions.answer(hall_repo, asked["qid"], "a")
    assert [q["qid"] for q in resume.owed(hall_repo)] == [asked["qid"]]
    got = questions.wait_for_answer(hall_repo, asked, None)
    assert got["answer"] == "billed" and got["delivered_here"] is True
    assert resume.owed(hall_repo) == []
    # asking again for the same answer records nothing new
    again = questions.wait_for_answer(hall_repo, asked, None)
    assert again["delivered_here"] is False
    delivered = [e for e in journal.read(hall_repo.paths.repo_journal).events if e["event"] == "answer_delivered"]
    assert len(delivered) == 1


def test_a_daemon_that_claimed_first_keeps_its_claim(hall_repo):
    asked = questions.ask(hall_repo, "which port?", session="sess-2")
    questions.answer(hall_repo, asked["qid"], "8080")
    journal.append(
        hall_repo.paths.repo_journal, "resume_started", item=None, actor="hall", qid=asked["qid"], session="sess-2"
    )
    got = questions.wait_for_answer(hall_repo, asked, None)
    assert got["answer"] == "8080" and got["delivered_here"] is False
    assert not [e for e in journal.read(hall_repo.paths.repo_journal).events if e["event"] == "answer_delivered"]
