enum PlaceholderTODOREMOVE {}
