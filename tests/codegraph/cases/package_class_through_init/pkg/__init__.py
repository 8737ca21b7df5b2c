from .models import Model
