"""benchmarks/core_lines.py: the issue's count of the core, its exclusions by path."""

from benchmarks.core_lines import core_lines


def test_the_core_count_leaves_out_the_report_page_cli_demo_and_brax_glue(tmp_path):
    files = {
        "__init__.py": 2,
        "demo.py": 50,
        "cli.py": 40,
        "record/page.py": 30,
        "functional/brax_training.py": 20,
        "functional/brax_training_ppo.py": 10,
        "functional/maps.py": 7,
        "shell/base.py": 5,
        "shell/record.py": 3,  # only the top folder named record/ is left out
    }
    for name, n in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" * n)
    assert core_lines(tmp_path) == {"functional": 7, "shell": 8, "top": 2, "total": 17}
