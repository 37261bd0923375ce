"""What a trained run did, read from its files and its policy: the success rate per goal of a
saved run (`run_evaluation`), the success-rate table of several runs (`success_report`), and
the learning curve and an episode of the agent (`figures`)."""
