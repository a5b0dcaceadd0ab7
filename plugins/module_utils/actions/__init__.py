"""Release operations (install, upgrade, rollback, uninstall, info) that carry out a Plan."""
