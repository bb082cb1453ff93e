"""benchmarks/core_lines.py: the issue's count of the core, its exclusions by path."""

import pytest

from benchmarks.core_lines import core_lines


def test_the_core_count_leaves_out_the_report_page_cli_demo_and_brax_glue(tmp_path):
    files = {
        "__init__.py": 2,
        "demo.py": 50,
        "cli.py": 40,
        "record/page.py": 30,
        "functional/brax_training.py": 20,
        "functional/brax_training_ppo.py": 10,
        "functional/core.py": 7,
        "shell/base.py": 5,
        "shell/record.py": 3,  # only the top folder named record/ is left out
    }
    for name, n in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" * n)
    counts = {"functional": 7, "shell": 8, "top": 2, "total": 17, "catalogue": 0}
    assert core_lines(tmp_path) == counts


def test_the_catalogue_is_counted_by_module_and_by_name(tmp_path):
    (tmp_path / "wrappers").mkdir()
    (tmp_path / "transforms").mkdir()
    (tmp_path / "transforms" / "noise.py").write_text("x = 1\n" * 4)  # a module all its own
    (tmp_path / "wrappers" / "stateful_action.py").write_text(
        "import gymnasium\n\n\n"
        "def check_repeats(n):\n    return n\n\n\n"
        "@decorated\nclass RepeatAction:\n    pass\n\n\n"
        "class StickyAction:\n    pass\n"
    )
    counts = core_lines(tmp_path)
    assert (counts["total"], counts["catalogue"]) == (18, 4 + 2 + 3)


def test_a_catalogue_name_that_is_gone_is_an_error(tmp_path):
    (tmp_path / "wrappers").mkdir()
    (tmp_path / "wrappers" / "stateful_action.py").write_text("def check_repeats(n):\n    pass\n")
    with pytest.raises(ValueError, match="RepeatAction"):
        core_lines(tmp_path)
