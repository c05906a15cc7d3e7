"""The API's views: thin (validate -> one service or selector call -> serialise)."""
