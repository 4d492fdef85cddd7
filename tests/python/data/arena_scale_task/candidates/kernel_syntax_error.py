this is not python(
